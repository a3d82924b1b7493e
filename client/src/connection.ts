import { apiAnswer } from './answers.js';
import { invalidParameter } from './errors.js';
import type { OutgoingRequest, Transport } from './transport.js';
import type { FetchOptions } from './types.js';

/** What every surface of the client (tickets, then forwarding) sends through. */
export interface Connection {
  readonly serviceId: string;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly transport: Transport;
  /** The id token of the moment: setIdToken changes it between calls. */
  idToken(): string | null;
}

export const positiveInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value > 0;

/** A request to a project route (/v1/projects/<serviceId><route>), with the id token when there is one. */
export function projectRequest(connection: Connection, method: OutgoingRequest['method'], route: string, body?: unknown): OutgoingRequest {
  const headers: Record<string, string> = {};
  const idToken = connection.idToken();
  if (idToken) headers.authorization = `Bearer ${idToken}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const url = `${connection.baseUrl}/v1/projects/${encodeURIComponent(connection.serviceId)}${route}`;
  return { method, url, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** Calls a project route with the id token: the JSON body on 2xx, else SvcError. */
export async function callProjectRoute(connection: Connection, method: OutgoingRequest['method'], route: string, body?: unknown): Promise<unknown> {
  return apiAnswer(await connection.transport.send(projectRequest(connection, method, route, body)));
}

/** The paging query of a listing; a limit that is not a positive integer is refused before sending. */
export function paging(options: FetchOptions | undefined): Record<string, unknown> {
  if (options?.limit !== undefined && !positiveInteger(options.limit)) throw invalidParameter('fetchOptions.limit: must be a positive integer.');
  return { startKey: options?.startKey ?? undefined, limit: options?.limit };
}

/** A plain query string (listing parameters are sent as written, not JSON-encoded). */
export function searchOf(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null) query.set(key, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}
