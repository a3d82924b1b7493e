import { consumeAnswer, apiAnswer } from './answers.js';
import { invalidParameter } from './errors.js';
import { toQueryString } from './query.js';
import type { TicketReceipt } from './receipt.js';
import { Transport, type OutgoingRequest } from './transport.js';
import type {
  ClearTicketLogParams,
  ClearTicketLogResult,
  ConsumeTicketParams,
  ConsumedRow,
  DatabaseResponse,
  FetchOptions,
  GetConsumedTicketsParams,
  GetTicketsParams,
  Ticket,
} from './types.js';

export interface SvcOptions {
  /** The project (service) id. */
  serviceId: string;
  /** Where the service answers, such as 'https://abcd.svc.example.com' (the regional host of the project). */
  baseUrl: string;
  /** The signed-in user's id token (or the owner key, for owner-only calls). Change it with setIdToken. */
  idToken?: string | null;
  /** Requests in flight at once; the rest wait. Default 50. */
  batchSize?: number;
  /** ms one attempt of a request may take, answer included. Default 30000 (a consumption may run 25 s). */
  timeoutMs?: number;
  /** A 429 asking to wait longer than this (ms) fails at once. Default 60000. */
  maxRetryWaitMs?: number;
  /** The fetch to use. Default globalThis.fetch. */
  fetch?: typeof fetch;
}

export const DEFAULT_BATCH_SIZE = 50;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

const positiveInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value > 0;

/** The browser client of the service's ticket methods (spec 4.2). */
export class Svc {
  readonly serviceId: string;
  readonly baseUrl: string;
  private idToken: string | null;
  private readonly transport: Transport;

  constructor(options: SvcOptions) {
    if (typeof options?.serviceId !== 'string' || options.serviceId === '') throw invalidParameter('serviceId: required.');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) throw invalidParameter('baseUrl: must be an http(s) URL.');
    for (const key of ['batchSize', 'timeoutMs', 'maxRetryWaitMs'] as const) {
      if (options[key] !== undefined && !positiveInteger(options[key])) throw invalidParameter(`${key}: must be a positive integer.`);
    }
    this.serviceId = options.serviceId;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.idToken = options.idToken ?? null;
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.transport = new Transport({
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetryWaitMs: options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
      fetch: fetchImpl,
    });
  }

  /** Sets the signed-in user's id token (null signs out). Logging in is the application's business. */
  setIdToken(token: string | null): void {
    this.idToken = token;
  }

  /**
   * Consumes a ticket: POST sends data as the JSON body (to /tpa as the signed-in user when auth is
   * true, else /tp); GET sends data as the query string to /tg.
   *
   * Resolves, whatever the HTTP status, with:
   * - the TicketReceipt (a ticket without resp, or a resp without a body);
   * - the JSON body a resp action composed, as sent (`null` included);
   * - `undefined` when a resp action set status 204, 205 or 304: HTTP answers those without a body.
   *   The consumption succeeded and took its count; there is no receipt to hand back.
   *
   * T is the caller's statement of what this ticket answers, as with a body a resp composes: the
   * default TicketReceipt fits a ticket without resp; write `consumeTicket<undefined>(...)` for a resp
   * with status 204, and `consumeTicket<Body | undefined>(...)` when the resp status is templated and
   * may be 204.
   *
   * Rejects with SvcError: a body with `stage` (cause: the TicketError), even on a 200; an empty body
   * on any other status (a 200 or 502 that lost its body on the way) is INVALID_RESPONSE.
   */
  async consumeTicket<T = TicketReceipt>(params: ConsumeTicketParams): Promise<T> {
    if (typeof params?.ticket_id !== 'string' || params.ticket_id === '') throw invalidParameter('ticket_id: required.');
    if (params.method !== 'GET' && params.method !== 'POST') throw invalidParameter("method: must be 'GET' or 'POST'.");
    if (params.auth && params.method === 'GET') throw invalidParameter('Signed-in consumption is POST only.');
    if (params.data !== undefined && (typeof params.data !== 'object' || params.data === null)) throw invalidParameter('data: must be an object.');
    const ticket = `${encodeURIComponent(this.serviceId)}/${encodeURIComponent(params.ticket_id)}`;
    let request: OutgoingRequest;
    if (params.method === 'GET') {
      request = { method: 'GET', url: `${this.baseUrl}/tg/${ticket}${toQueryString(params.data)}` };
    } else {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (params.auth && this.idToken) headers.authorization = `Bearer ${this.idToken}`;
      request = { method: 'POST', url: `${this.baseUrl}/${params.auth ? 'tpa' : 'tp'}/${ticket}`, headers, body: JSON.stringify(params.data ?? {}) };
    }
    return consumeAnswer(await this.transport.send(request)) as T;
  }

  /** Lists tickets (logged in); the owner also reads a ticket's log with ticket_id '#<id>#'. */
  async getTickets<T = Ticket>(params: GetTicketsParams = {}, fetchOptions?: FetchOptions): Promise<DatabaseResponse<T>> {
    const query = { ticket_id: params.ticket_id, from: params.from, to: params.to, ...paging(fetchOptions) };
    return this.api('GET', `/tickets${searchOf(query)}`) as Promise<DatabaseResponse<T>>;
  }

  /** Lists the caller's own consumptions made on the signed-in endpoint. */
  async getConsumedTickets(params: GetConsumedTicketsParams = {}, fetchOptions?: FetchOptions): Promise<DatabaseResponse<ConsumedRow>> {
    const query = { ticket_id: params.ticket_id, ...paging(fetchOptions) };
    return this.api('GET', `/consumed${searchOf(query)}`) as Promise<DatabaseResponse<ConsumedRow>>;
  }

  /** Deletes a ticket's log rows before `before` (default now), in the background (project owner only). */
  async clearTicketLog(params: ClearTicketLogParams): Promise<ClearTicketLogResult> {
    if (typeof params?.ticket_id !== 'string' || params.ticket_id === '') throw invalidParameter('ticket_id: required.');
    const body = params.before === undefined ? {} : { before: params.before };
    return this.api('POST', `/tickets/${encodeURIComponent(params.ticket_id)}/clear-log`, body) as Promise<ClearTicketLogResult>;
  }

  private async api(method: 'GET' | 'POST', route: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.idToken) headers.authorization = `Bearer ${this.idToken}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = `${this.baseUrl}/v1/projects/${encodeURIComponent(this.serviceId)}${route}`;
    return apiAnswer(await this.transport.send({ method, url, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  }
}

function paging(options: FetchOptions | undefined): Record<string, unknown> {
  if (options?.limit !== undefined && !positiveInteger(options.limit)) throw invalidParameter('fetchOptions.limit: must be a positive integer.');
  return { startKey: options?.startKey ?? undefined, limit: options?.limit };
}

/** A plain query string (listing parameters are sent as written, not JSON-encoded). */
function searchOf(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null) query.set(key, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}
