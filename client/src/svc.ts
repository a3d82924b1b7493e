import { positiveInteger, type Connection } from './connection.js';
import { invalidParameter } from './errors.js';
import { clientSecretRequest, clientSecretRequestFinalize, clientSecretRequestStream } from './forward-aliases.js';
import { forwardRequestFinalize, forwardRequestStream } from './forward-stream.js';
import {
  cancelForwardRequest,
  forwardContext,
  forwardRequest,
  forwardRequestHistory,
  forwardRequestQueueCount,
  stopForwardRequestPolling,
  type ForwardContext,
} from './forward.js';
import type {
  CancelForwardRequestParams,
  ClientSecretRequestParams,
  FinalizeAnswer,
  ForwardCheckAnswer,
  ForwardForm,
  ForwardHistoryParams,
  ForwardRequestOptions,
  ForwardRequestStreamOptions,
  ForwardStatusObject,
  PollPromise,
  QueueCountAnswer,
  QueueCountParams,
  RemovalAnswer,
  RequestHistoryItem,
  RequestLocation,
  StopPollingParams,
  StoppedPoll,
  StreamEnd,
} from './forward-types.js';
import { isPollStopped } from './polls.js';
import { secureRequest, type SecureRequestParams, type SecureResponse } from './secure.js';
import type { TicketReceipt } from './receipt.js';
import { clearTicketLog, consumeTicket, getConsumedTickets, getTickets } from './tickets.js';
import { Transport } from './transport.js';
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

/** The browser client of the service (spec 4.2, 4.3): one facade over the methods of each surface (tickets.ts, forward.ts). */
export class Svc {
  readonly serviceId: string;
  readonly baseUrl: string;
  private idToken: string | null;
  private readonly connection: Connection;
  private readonly forwarding: ForwardContext;

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
    const transport = new Transport({
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetryWaitMs: options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
      fetch: fetchImpl,
    });
    this.connection = { serviceId: this.serviceId, baseUrl: this.baseUrl, transport, idToken: () => this.idToken };
    this.forwarding = forwardContext(this.connection);
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
    return (await consumeTicket(this.connection, params)) as T;
  }

  /** Lists tickets (logged in); the owner also reads a ticket's log with ticket_id '#<id>#'. */
  async getTickets<T = Ticket>(params: GetTicketsParams = {}, fetchOptions?: FetchOptions): Promise<DatabaseResponse<T>> {
    return getTickets(this.connection, params, fetchOptions) as Promise<DatabaseResponse<T>>;
  }

  /** Lists the caller's own consumptions made on the signed-in endpoint. */
  async getConsumedTickets(params: GetConsumedTicketsParams = {}, fetchOptions?: FetchOptions): Promise<DatabaseResponse<ConsumedRow>> {
    return getConsumedTickets(this.connection, params, fetchOptions);
  }

  /** Deletes a ticket's log rows before `before` (default now), in the background (project owner only). */
  async clearTicketLog(params: ClearTicketLogParams): Promise<ClearTicketLogResult> {
    return clearTicketLog(this.connection, params);
  }

  /**
   * Has the service send an HTTP request for the page (spec 4.3), as the signed-in user of setIdToken
   * or as a visitor; `$CLIENT_SECRET` in url, headers, data and params becomes the value of the Secret
   * Key `secretName`, server side. `form` (submit event, form element, FormData, object or null) is
   * flattened into params (GET, DELETE, HEAD) or data, the options' own keys winning, or relayed as its
   * multipart bytes with `multipart: true`.
   *
   * Resolves with:
   * - no queue and no poll: the destination's body (JSON when it parses, else text; any status is an
   *   answer), also handed to onResponse;
   * - a queue and poll 0 or omitted: the status object `{ id, status: 'pending', queue_name, in_queue }`
   *   with poll();
   * - poll > 0: the final result once polling ends, or onResponse's return value; `{ id, status:
   *   'stopped' }` when the poll was stopped or its signal aborted (isPollStopped tells);
   * - check: true: what would be sent and the verdicts, nothing sent;
   * - stream: true (queued; the server names a queue when none is given): as a queued request, but the
   *   destination's answer is read piece by piece into the request's chunk store. A poll with onStream
   *   (the option, or poll()'s own) hands each piece once, in order, to onStream(chunk, seq, via) and
   *   resolves with the status envelope (a failed stream resolves too: check `status`); with `realtime`
   *   the pieces also come over this client's realtime socket, when it has one. Without onStream the
   *   poll reads the status only, as for any queued request.
   *
   * Options that are wrong reject with INVALID_PARAMETER before anything is sent (an aborted signal
   * with INVALID_REQUEST). A failure after that (a refusal of the server, a failed request, a poll that
   * cannot read its request) goes to onError when given, and the promise resolves with what onError
   * returns; without onError the promise rejects with SvcError.
   */
  forwardRequest(form: ForwardForm, options: ForwardRequestOptions & { check: true }): Promise<ForwardCheckAnswer>;
  forwardRequest(form: ForwardForm, options: ForwardRequestOptions & { queue: string; poll?: 0 }): Promise<ForwardStatusObject>;
  forwardRequest(form: ForwardForm, options: ForwardRequestOptions & { stream: true; poll?: 0 }): Promise<ForwardStatusObject>;
  forwardRequest<T = unknown>(form: ForwardForm, options: ForwardRequestOptions): Promise<T | StoppedPoll>;
  async forwardRequest(form: ForwardForm, options: ForwardRequestOptions): Promise<unknown> {
    return forwardRequest(this.forwarding, form, options);
  }

  /**
   * Reads a request of the caller's back (after a reload, in another tab, from history), by the state
   * it is in: running, each piece to onStream until it settles, then its status envelope; finished and
   * not finalized, every stored piece after `since`, in order, then the envelope; finalized, the kept
   * body (no piece). With realtimeGroup (the dispatch reply's realtime_group) and onStream, pieces also
   * come over the realtime socket. A failed request resolves with its envelope; onError is for the read
   * itself failing. stop() and stopForwardRequestPolling end the read only, never the request.
   */
  forwardRequestStream<T = StreamEnd>(requestId: string, options?: ForwardRequestStreamOptions): PollPromise<T> {
    return forwardRequestStream<T>(this.forwarding, requestId, options);
  }

  /**
   * Keeps `data` (verbatim; null when not given) as the result of a finished streamed request and
   * releases its pieces. `{ finalized: false, message }` for a request not found (or another caller's),
   * not finished, or not streamed; repeating replaces the kept version.
   */
  async forwardRequestFinalize(requestId: string, data?: unknown, options?: RequestLocation): Promise<FinalizeAnswer> {
    return forwardRequestFinalize(this.forwarding, requestId, data, options);
  }

  /** Removes a pending request or aborts a running one; with queue, this client also stops polling it. */
  async cancelForwardRequest(params: CancelForwardRequestParams): Promise<RemovalAnswer> {
    return cancelForwardRequest(this.forwarding, params);
  }

  /**
   * Stops this client's polls and stream reads (the requests carry on): `{ url, method, id }` one
   * request, `{ queue }` every poll on that queue, nothing every live one. A stopped poll resolves `{ id, status: 'stopped' }`
   * without calling onResponse or onError; a request still waiting in its queue is also removed there.
   * Returns how many polls were stopped (0 for an unknown or finished request).
   */
  stopForwardRequestPolling(params?: StopPollingParams): number {
    return stopForwardRequestPolling(this.forwarding, params);
  }

  /** True when `res` is what a stopped poll resolved with, not an answer of the server. */
  isPollStopped(res: unknown): res is StoppedPoll {
    return isPollStopped(res);
  }

  /** How many requests wait in one of the caller's queues. */
  async forwardRequestQueueCount(params: QueueCountParams): Promise<QueueCountAnswer> {
    return forwardRequestQueueCount(this.forwarding, params);
  }

  /**
   * The caller's own requests to one url and method, paged by startKey. The queue filters apply after
   * the read, so a page may be short while endOfList is false. Pending and running items carry poll().
   */
  async forwardRequestHistory(params: ForwardHistoryParams, fetchOptions?: FetchOptions): Promise<DatabaseResponse<RequestHistoryItem>> {
    return forwardRequestHistory(this.forwarding, params, fetchOptions);
  }

  /**
   * Has the service POST to the customer's own API (spec 4.3) the signed-in user's information (user_id,
   * access_group, email and the attributes of the id token), `data` and, when the project has a
   * secureRequest key, that key as `api_key`, signed with it in the Standard Webhooks format. `params` is
   * one request `{ url, data?, sync? }`, an array of at most 50 (in an array a request with `sync` is sent
   * after the one before it has answered; the others at once), or FormData / a plain object that is the
   * data, with the url as the second argument (FormData is flattened as forwardRequest does). HTML forms
   * (a form element or a submit event) are refused.
   *
   * Resolves with `{ response, statusCode, url }` (response parsed as JSON when it parses; any status is
   * an answer), or an array of them in the order of the requests; in an array a request that failed once
   * sent answers `{ response: null, statusCode: 0, url, error: { code, message } }`, while a single one
   * rejects with that code (TIMEOUT or REQUEST_FAILED).
   *
   * Rejects before sending: INVALID_PARAMETER for params that are wrong, AUTH_REQUIRED without an id
   * token. The server also answers AUTH_REQUIRED to the owner key.
   */
  secureRequest<T = unknown>(params: SecureRequestParams): Promise<SecureResponse<T>>;
  secureRequest<T = unknown>(params: SecureRequestParams[]): Promise<SecureResponse<T>[]>;
  secureRequest<T = unknown>(params: FormData | Record<string, unknown>, url: string): Promise<SecureResponse<T>>;
  async secureRequest(params: unknown, url?: string): Promise<unknown> {
    return secureRequest(this.connection, params, url);
  }

  /** @deprecated Use forwardRequest(null, { secretName, ... }). One params object with a required clientSecretName and method GET, POST, DELETE or PUT. */
  clientSecretRequest(params: ClientSecretRequestParams & { queue: string; poll?: 0 }): Promise<ForwardStatusObject>;
  clientSecretRequest<T = unknown>(params: ClientSecretRequestParams): Promise<T | StoppedPoll>;
  async clientSecretRequest(params: ClientSecretRequestParams): Promise<unknown> {
    return clientSecretRequest(this.forwarding, params);
  }

  /** @deprecated Use forwardRequestStream. */
  clientSecretRequestStream<T = StreamEnd>(requestId: string, options?: ForwardRequestStreamOptions): PollPromise<T> {
    return clientSecretRequestStream<T>(this.forwarding, requestId, options);
  }

  /** @deprecated Use forwardRequestFinalize. */
  async clientSecretRequestFinalize(requestId: string, data?: unknown, options?: RequestLocation): Promise<FinalizeAnswer> {
    return clientSecretRequestFinalize(this.forwarding, requestId, data, options);
  }

  /** @deprecated Use cancelForwardRequest. */
  async cancelClientSecretRequest(params: CancelForwardRequestParams): Promise<RemovalAnswer> {
    return this.cancelForwardRequest(params);
  }

  /** @deprecated Use stopForwardRequestPolling. */
  stopClientSecretPolling(params?: StopPollingParams): number {
    return this.stopForwardRequestPolling(params);
  }

  /** @deprecated Use forwardRequestHistory. */
  async clientSecretRequestHistory(params: ForwardHistoryParams, fetchOptions?: FetchOptions): Promise<DatabaseResponse<RequestHistoryItem>> {
    return this.forwardRequestHistory(params, fetchOptions);
  }

  /** @deprecated Use forwardRequestQueueCount. */
  async clientSecretRequestQueueCount(params: QueueCountParams): Promise<QueueCountAnswer> {
    return this.forwardRequestQueueCount(params);
  }
}
