/**
 * Whether text takes more than maxBytes as UTF-8. A UTF-16 unit is 1 to 3 bytes (a surrogate pair 4 for
 * two units), so the text is encoded only when its length leaves the answer open.
 */
export function utf8Over(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return new TextEncoder().encode(text).length > maxBytes;
}
