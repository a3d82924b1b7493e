/**
 * Text cut into pieces that each fit a SQL row (D1 and Durable Object SQLite hold at most 2,000,000
 * bytes per value and per row, as UTF-8): the pieces join back to the text exactly.
 */
import { utf8Bytes } from '../../schemas/utf8';

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
