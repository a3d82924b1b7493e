import { fromBase62, randomBase62, toBase62 } from '../../schemas/encoding';

/** consume_id: base62 of the ms timestamp followed by 4 random base62 characters (spec 8). */
export function newConsumeId(nowMs: number): string {
  return toBase62(nowMs) + randomBase62(4);
}

/** The ms timestamp a consume_id was made at. */
export const consumeIdTime = (consumeId: string): number => fromBase62(consumeId.slice(0, -4));

/** The consumer as the receipt names it: the user id when signed in, else '<ip>(<user agent>)'. */
export const consumerName = (userId: string | undefined, ip: string, userAgent: string): string => userId ?? `${ip}(${userAgent})`;

export const tkidOf = (ticketId: string, consumeId: string, consumer: string): string => `#${ticketId}#${consumeId}#${consumer}`;

/** Imported HMAC keys by receipt key: one import per project per isolate instead of one per consumption. */
const receiptKeys = new Map<string, CryptoKey>();
/** Bound on the cache; past it the cache starts over (a project's key is re-imported on its next use). */
const MAX_CACHED_RECEIPT_KEYS = 1_000;
const utf8 = new TextEncoder();

async function receiptCryptoKey(receiptKey: string): Promise<CryptoKey> {
  const cached = receiptKeys.get(receiptKey);
  if (cached) return cached;
  const key = await crypto.subtle.importKey('raw', utf8.encode(receiptKey), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  if (receiptKeys.size >= MAX_CACHED_RECEIPT_KEYS) receiptKeys.clear();
  receiptKeys.set(receiptKey, key);
  return key;
}

/**
 * The receipt hash: hex HMAC-SHA256 of the tkid keyed with the project's receipt key (the hex
 * SHA-256 of the owner key, as UTF-8), so the owner can verify a receipt offline with the owner key.
 */
export async function receiptHash(receiptKey: string, tkid: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await receiptCryptoKey(receiptKey), utf8.encode(tkid)));
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
