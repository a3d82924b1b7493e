/** UTF-8 sizes and cuts of text, as SQL stores it. */
/**
 * Whether text takes more than maxBytes as UTF-8. A UTF-16 unit is 1 to 3 bytes (a surrogate pair 4 for
 * two units), so the text is encoded only when its length leaves the answer open.
 */
export function utf8Over(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return new TextEncoder().encode(text).length > maxBytes;
}

/** Bytes of `text` in UTF-8, without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The text in pieces of at most `maxBytes` as UTF-8 each, each as long as that allows (ASCII text fills a
 * piece). A cut never falls between the two halves of a surrogate pair (SQLite would store each lone half
 * as U+FFFD).
 */
export function textPieces(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + maxBytes);
    for (;;) {
      const last = text.charCodeAt(end - 1);
      if (end < text.length && end - at > 1 && last >= 0xd800 && last <= 0xdbff) end -= 1;
      const bytes = utf8Bytes(text.slice(at, end));
      if (bytes <= maxBytes || end - at <= 1) break;
      end = at + Math.max(1, Math.floor(((end - at) * maxBytes) / bytes));
    }
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}
