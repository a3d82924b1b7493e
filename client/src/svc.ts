import { positiveInteger, type Connection } from './connection.js';
import { invalidParameter } from './errors.js';
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

/** The browser client of the service (spec 4.2): one facade over the methods of each surface (tickets.ts). */
export class Svc {
  readonly serviceId: string;
  readonly baseUrl: string;
  private idToken: string | null;
  private readonly connection: Connection;

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
}
