import type { ConsumedRow, DatabaseResponse, ListedTicket, LogClearAnswer, OwnerLogRow } from '../../schemas/listings.js';

export type { ConsumedRow, DatabaseResponse };

/** A ticket as getTickets lists it (spec 2.1.1). The owner-only fields are present for the project owner. */
export type Ticket = ListedTicket;

/**
 * A row of a ticket's log as the owner lists it (getTickets with '#<ticket_id>#'). A run after resp waiting
 * for its ticket's retry schedule (extension) has next_attempt_at; its attempts are in the description.
 */
export type TicketLogRow = OwnerLogRow;

/** What clearTicketLog resolves with. */
export type ClearTicketLogResult = LogClearAnswer;

/** Paging of a listing. */
export interface FetchOptions {
  /** The startKey of the previous page. */
  startKey?: string | null;
  /** Rows per page, 1 to 100 (server default 50). */
  limit?: number;
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
