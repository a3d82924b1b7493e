import type { ReceiptBody, TicketReceipt } from '../../schemas/receipt.js';
import { fromBase62 } from '../../schemas/encoding.js';

export type { TicketReceipt };

const RANDOM_SUFFIX = 4;
// '#<ticket_id>#<consume_id>#<consumer>': ticket and consume ids never hold '#'; the consumer (a user agent) may.
const TKID = /^#([^#]+)#([0-9A-Za-z]+)#([\s\S]*)$/;

/** The ms timestamp a consume_id was made at. */
export function consumeIdTime(consumeId: string): number {
  return fromBase62(consumeId.slice(0, -RANDOM_SUFFIX));
}

/** The receipt of a wire success body `{ tkid, hash }`; null when the body is not one (a resp action's body). */
export function receiptOf(body: unknown): TicketReceipt | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { tkid, hash } = body as Partial<Record<keyof ReceiptBody, unknown>>;
  if (typeof tkid !== 'string' || typeof hash !== 'string') return null;
  const match = TKID.exec(tkid);
  if (!match || match[2].length <= RANDOM_SUFFIX) return null;
  const [, ticket_id, consume_id, user_id] = match;
  return { ticket_id, consume_id, user_id, is_test: false, timestamp: consumeIdTime(consume_id), hash };
}
