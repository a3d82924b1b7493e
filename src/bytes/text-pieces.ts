/**
 * Text cut into pieces that each fit a SQL row (D1 and Durable Object SQLite hold at most 2,000,000
 * bytes per value and per row, as UTF-8): the pieces join back to the text exactly.
 */

/** Bytes of a text as SQLite stores it (UTF-8). */
export const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/**
 * The text in pieces of at most `maxBytes` as UTF-8 each. A UTF-16 unit takes at most 3 bytes, so a piece
 * is maxBytes / 3 units; a cut never falls between the two halves of a surrogate pair (SQLite would store
 * each lone half as U+FFFD).
 */
export function textPieces(text: string, maxBytes: number): string[] {
  const units = Math.max(2, Math.floor(maxBytes / 3));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + units);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}
