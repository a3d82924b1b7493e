const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function toBase62(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('base62 takes a non-negative safe integer');
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out;
}

export function fromBase62(text: string): number {
  let n = 0;
  for (const ch of text) {
    const digit = BASE62.indexOf(ch);
    if (digit < 0) throw new RangeError(`not a base62 digit: ${ch}`);
    n = n * 62 + digit;
  }
  return n;
}

/** `length` random base62 characters, each equally likely (the random part of consume, record and request ids). */
export function randomBase62(length: number): string {
  let out = '';
  // 248 = 4 × 62: bytes at or above it are skipped, so no character is likelier than another.
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
