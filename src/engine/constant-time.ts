/**
 * Byte comparison whose running time depends only on the lengths: every byte is read, no early
 * exit at the first difference, so a caller cannot learn how many leading bytes of a guess match.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
