/** Every listing answers this shape; pass startKey back in fetchOptions for the next page. */
export interface DatabaseResponse<T> {
  list: T[];
  startKey: string | null;
  endOfList: boolean;
}

/** Paging of a listing. */
export interface FetchOptions {
  /** The startKey of the previous page. */
  startKey?: string | null;
  /** Rows per page, 1 to 100 (server default 50). */
  limit?: number;
}

/** A ticket as getTickets lists it (spec 2.1.1). The owner-only fields are present for the project owner. */
export interface Ticket {
  ticket_id: string;
  description: string;
  /** Remaining consumptions; absent = unlimited. */
  count?: number;
  /** Absolute expiry, ms; absent = never. */
  time_to_live?: number;
  /** Registered at, ms. */
  timestamp: number;
  limit_per_user?: number | boolean;
  updated?: number;
  condition?: Record<string, unknown>;
  actions?: Record<string, unknown>[];
  legacy?: boolean;
  rules_version?: number;
}

/** A row of getConsumedTickets: one of the caller's own signed-in consumptions (spec 2.6). */
export interface ConsumedRow {
  ticket_id: string;
  consume_id: string;
  user_id: string;
  is_test: false;
  timestamp: number;
  /** The consumption log as a JSON string; its outcome.ok says whether it succeeded. */
  description: string;
}

/**
 * What consumeTicket sends. What it resolves with depends on the ticket: a TicketReceipt, the body a
 * resp action composed, or undefined when a resp set status 204, 205 or 304 (choose T to match).
 */
export interface ConsumeTicketParams {
  ticket_id: string;
  method: 'GET' | 'POST';
  /** Consume on the signed-in endpoint as the user of setIdToken (POST only). */
  auth?: boolean;
  /** JSON body of a POST, or the query string of a GET. */
  data?: Record<string, unknown>;
}

export interface GetTicketsParams {
  /** Omit for every ticket. The owner may pass '#<ticket_id>#' (log) or '@<ticket_id>#<consume_id>#' (action rows). */
  ticket_id?: string;
  /** Log listing only: rows from this time (ms). */
  from?: number;
  /** Log listing only: rows up to this time (ms). */
  to?: number;
}

export interface GetConsumedTicketsParams {
  ticket_id?: string;
}

export interface ClearTicketLogParams {
  ticket_id: string;
  /** ms since the epoch; default now. */
  before?: number;
}

export interface ClearTicketLogResult {
  message: string;
  ticket_id: string;
  before: number;
}
