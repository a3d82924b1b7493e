/** Public request ids (`stamp:entropy`) and generated queue names. */
import { toBase62 } from '../consume/receipt';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomBase62(length: number): string {
  let out = '';
  // 248 = 4 × 62: bytes at or above it are skipped, so every character is equally likely.
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** `stamp:entropy`: base62 of the ms time, then 16 random base62 characters (95 bits). */
export const newPublicId = (now: number): string => `${toBase62(now)}:${randomBase62(16)}`;

/** The queue of a request that asked to be polled without naming one. */
export const generatedQueueName = (): string => `auto-${randomBase62(12)}`;
