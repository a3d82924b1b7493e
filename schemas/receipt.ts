/** The receipt of a successful consumption (spec 2.6): what the server sends and what the client makes of it. */

/** The wire success body (generated from the route's answer schema); a success body never has `stage`. */
import type { ReceiptBody } from './answer-types.generated';

export type { ReceiptBody };

/**
 * The receipt as the client resolves it, read from the ReceiptBody. A consumption whose resp action
 * answered resolves with that body instead (or undefined for a resp status of 204, 205 or 304).
 */
export interface TicketReceipt {
  ticket_id: string;
  /** base62 of the timestamp in ms followed by 4 random characters. */
  consume_id: string;
  /** The user id on the signed-in endpoint, else '<ip>(<user agent>)'. */
  user_id: string;
  is_test: false;
  /** ms since the epoch, decoded from consume_id. */
  timestamp: number;
  /** Proof of the consumption; the project owner can verify it. */
  hash: string;
}
