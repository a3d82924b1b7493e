import type { ErrorBody } from '../wire/errors';
import type { RequestSnapshot } from '../engine/snapshot';
import type { RunState } from '../actions/runner';

/**
 * What the Worker hands the TicketDO for one consumption or dry run (structured-clonable). The body
 * travels once, as its raw bytes: the object parses it (cloning the parsed tree too cost more).
 */
export interface ConsumeInput {
  mode: 'consume' | 'check';
  project: { service_id: string; owner_id: string; receipt_key: string; plan: string };
  ticket_id: string;
  request: Omit<RequestSnapshot, 'body' | 'params'>;
  /** The raw query string ('?a=1' or ''): read by the ticket's rules (a legacy ticket keeps every value a string). */
  search: string;
  /** The URL as received (scheme, host, path, query): the ${url} token of a signature (extension). */
  url?: string;
  /** The raw body bytes, exactly as received (the signature is computed over them); empty on GET. */
  rawBody: Uint8Array;
  /** Consumed on a signed-in route (/tpa, /auth/consume). */
  signedRoute: boolean;
  /** An older long-form route (/publ/..., /auth/consume): the only ones where a legacy ticket captures placeholders. */
  longForm: boolean;
  /** Why the id token was refused, if it was; reported as AUTH_REQUIRED at its place in the order. */
  authError?: string;
  /** The caller is the ticket's issuer (the project owner). */
  issuer: boolean;
  /**
   * The owner re-checks or replays a consumption from the log: its consume_id, and when it first arrived.
   * Extensions: `resume`, a dead letter's run state at its failed action (a partial replay goes on from
   * there); `batch`, the bulk replay it belongs to.
   */
  replay?: { of: string; received_at: number; resume?: RunState; batch?: number };
}

export type ConsumeOutcome =
  /** text: a handshake answered as text/plain (body is the text). */
  | { ok: true; status: number; body: unknown; text?: true }
  /** legacy: the ticket runs by the previous rules and answers its failure as plain text (spec 7). */
  /** retryAfter: seconds, sent as Retry-After (an idempotency key whose first consumption still runs). */
  | { ok: false; status: number; error: ErrorBody; legacy?: true; retryAfter?: number };
