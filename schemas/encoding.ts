/** The text encodings of bytes and numbers, once for the Worker, the client, the dashboard and the CLI. */

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

const asBytes = (bytes: Uint8Array | ArrayBuffer) => (bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));

/** Lowercase hex. */
export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  let out = '';
  for (const byte of asBytes(bytes)) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** Either case; an odd length or a non-hex character is undecodable. */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Standard base64 with padding, built in chunks so a large body does not overflow the call stack. */
export function toBase64(bytes: Uint8Array | ArrayBuffer): string {
  const all = asBytes(bytes);
  const CHUNK = 0x8000;
  let binary = '';
  for (let i = 0; i < all.length; i += CHUNK) binary += String.fromCharCode(...all.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** base64url without padding. */
export const toBase64Url = (bytes: Uint8Array | ArrayBuffer): string => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard or URL-safe alphabet, padding optional but correct when present; nothing else accepted. */
export function fromBase64(text: string): Uint8Array | undefined {
  let body = text.replace(/-/g, '+').replace(/_/g, '/');
  const padding = body.match(/=*$/)![0].length;
  if (padding > 2 || (padding > 0 && body.length % 4 !== 0)) return undefined;
  body = body.slice(0, body.length - padding);
  if (body.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(body)) return undefined;
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4));
  let bits = 0;
  let bitCount = 0;
  let out = 0;
  for (const char of body) {
    bits = ((bits << 6) | BASE64_DIGITS.indexOf(char)) & 0xffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      bytes[out++] = (bits >> bitCount) & 0xff;
    }
  }
  return bytes;
}
