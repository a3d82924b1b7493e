const encoder = new TextEncoder();

/**
 * Whether two byte arrays are equal, compared by the runtime's `crypto.subtle.timingSafeEqual`, so
 * a caller cannot learn how many leading bytes of a guess match. Different lengths are unequal;
 * `a` is then compared with itself, so the time still depends only on the lengths.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) {
    crypto.subtle.timingSafeEqual(a, a);
    return false;
  }
  return crypto.subtle.timingSafeEqual(a, b);
}

/** constantTimeEqual of the two strings' UTF-8 bytes. */
export const constantTimeEqualText = (a: string, b: string): boolean => constantTimeEqual(encoder.encode(a), encoder.encode(b));
