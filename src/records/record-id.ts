import { toBase62 } from '../consume/receipt';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** base62 of the ms timestamp + 8 random base62 characters: unique, and sorted by creation time. */
export function newRecordId(nowMs: number): string {
  let suffix = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(8))) suffix += BASE62[byte % 62];
  return toBase62(nowMs) + suffix;
}
