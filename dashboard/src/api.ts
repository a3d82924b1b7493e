/**
 * The page's calls to the service with the owner key (this origin only). A refusal throws ApiError
 * (its code, message and the field it names); a call that never got an answer throws NetworkError;
 * a 401 also tells the app, which goes back to sign-in.
 */
import type { ServiceErrorBody } from '../../schemas/error-body';
import type { BulkReplay, BulkReplayStart, DeadLetterReplay } from '../../schemas/listings';
import { refusedField } from './logic/json-path';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The field path the refusal names ('' when none). */
    readonly field: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class NetworkError extends Error {
  constructor() {
    super('The service could not be reached (network failure); nothing was changed.');
    this.name = 'NetworkError';
  }
}

export const errorText = (err: unknown): string => (err instanceof ApiError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err));

const isErrorBody = (value: unknown): value is ServiceErrorBody => typeof value === 'object' && value !== null && 'code' in value && 'message' in value;

export interface OwnerProject {
  service_id: string;
  owner_id: string;
  name: string;
  plan?: string;
  active: boolean;
  /** The owner's own settings (PATCH …/settings); the secureRequest key itself is never answered. */
  identity: { issuer: string; audience: string; jwks_url: string } | null;
  secure_request_key_set: boolean;
  secure_request_destinations: string[];
}

/** Calls to the service with one owner key; `onUnauthorized` runs on any 401. */
export class OwnerApi {
  constructor(
    private readonly ownerKey: string,
    readonly serviceId: string,
    private readonly onUnauthorized: () => void = () => {},
  ) {}

  /** The project an owner key opens (GET /v1/owner): the key alone names it. */
  static async signIn(ownerKey: string): Promise<OwnerProject> {
    return new OwnerApi(ownerKey, '').call<OwnerProject>('GET', '/v1/owner');
  }

  /** `/v1/projects/{service_id}{path}` as the owner. */
  project<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.call<T>(method, `/v1/projects/${this.serviceId}${path}`, body);
  }

  /** Sends a body already serialized (the JSON mode's text as written). */
  projectText<T>(method: string, path: string, text: string): Promise<T> {
    return this.call<T>(method, `/v1/projects/${this.serviceId}${path}`, undefined, text);
  }

  async call<T>(method: string, path: string, body?: unknown, text?: string): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: { authorization: `Bearer ${this.ownerKey}`, ...(body !== undefined || text !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: text ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
    } catch {
      throw new NetworkError();
    }
    const json: unknown = await res.json().catch(() => null);
    if (res.ok) return json as T;
    if (res.status === 401) this.onUnauthorized();
    if (isErrorBody(json)) throw new ApiError(res.status, json.code, json.message, refusedField(json.detail), json);
    throw new ApiError(res.status, 'HTTP_ERROR', `The service answered ${res.status}.`, '', json);
  }
}

/** The owner's forwarding history (GET …/forward/requests): a history item named by its caller. */
export type ForwardItem = import('../../schemas/forward-rules').RequestHistory & { caller: string };

/** One forwarded request in full (GET …/forward/requests/{id}). */
export interface ForwardRequestView extends ForwardItem {
  full_id: string;
  request_headers: Record<string, string> | null;
  finalized?: boolean;
  stream_text?: { text: string; pieces: number; complete: boolean } | null;
}

/** A page of the project's forwarded requests; `filters` are the listing's query parameters as written. */
export const listForwardRequests = (api: OwnerApi, filters: Record<string, string>, startKey: string | null) =>
  api.project<import('../../schemas/listings').DatabaseResponse<ForwardItem>>(
    'GET',
    `/forward/requests?${new URLSearchParams({ ...filters, ...(startKey ? { startKey } : {}) })}`,
  );

export const getForwardRequest = (api: OwnerApi, fullId: string) => api.project<ForwardRequestView>('GET', `/forward/requests/${encodeURIComponent(fullId)}`);

/** Extension: where dead letters are listed: the project's forwarding ones, or a ticket's when `ticketId` is given. */
const deadLettersPath = (ticketId?: string) => (ticketId === undefined ? '/forward/dead-letters' : `/tickets/${encodeURIComponent(ticketId)}/dead-letters`);

/** Extension: a page of dead letters (GET …/forward/dead-letters, or …/tickets/{id}/dead-letters). */
export const listDeadLetters = (api: OwnerApi, ticketId: string | undefined, filters: Record<string, string>, startKey: string | null) =>
  api.project<import('../../schemas/listings').DatabaseResponse<import('../../schemas/forward-rules').DeadLetter>>(
    'GET',
    `${deadLettersPath(ticketId)}?${new URLSearchParams({ ...filters, ...(startKey ? { startKey } : {}) })}`,
  );

/** Extension: replays a ticket's dead letter, from its failed action or (full) whole. */
export const replayDeadLetter = (api: OwnerApi, ticketId: string, consumeId: string, full: boolean) =>
  api.project<DeadLetterReplay>('POST', `${deadLettersPath(ticketId)}/${encodeURIComponent(consumeId)}/replay`, full ? { full } : {});

/** Extension: deletes a ticket's dead letter. */
export const deleteDeadLetter = (api: OwnerApi, ticketId: string, consumeId: string) =>
  api.project<{ removed: boolean; message: string }>('DELETE', `${deadLettersPath(ticketId)}/${encodeURIComponent(consumeId)}`);

/** Extension: a ticket's bulk replays (…/tickets/{id}/replays): counted or started, the latest listed, one read or cancelled. */
const replaysPath = (ticketId: string) => `/tickets/${encodeURIComponent(ticketId)}/replays`;
export const startBulkReplay = (api: OwnerApi, ticketId: string, request: Record<string, unknown>) =>
  api.project<BulkReplayStart>('POST', replaysPath(ticketId), request);
export const listBulkReplays = (api: OwnerApi, ticketId: string) => api.project<{ list: BulkReplay[] }>('GET', replaysPath(ticketId));
export const getBulkReplay = (api: OwnerApi, ticketId: string, id: number) => api.project<BulkReplay>('GET', `${replaysPath(ticketId)}/${id}`);
export const cancelBulkReplay = (api: OwnerApi, ticketId: string, id: number) => api.project<BulkReplay>('POST', `${replaysPath(ticketId)}/${id}/cancel`, {});

/** Extension: the project's paused destinations (GET …/destinations). */
export const listPausedDestinations = (api: OwnerApi) => api.project<import('../../schemas/forward-rules').PausedDestinations>('GET', '/destinations');
