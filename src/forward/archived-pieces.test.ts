/** A range of an archived stream answers the same page the chunk store answers for any cursor and cap. */
import { describe, expect, it } from 'vitest';
import { pageRange, PieceIndexBuilder, piecesOf } from './archived-pieces';

/** What chunk-store.ts answers (its loop, over an array). */
function storePage(pieces: string[], since: number, maxChars: number) {
  const chunks: { seq: number; txt: string }[] = [];
  let chars = 0;
  for (let seq = since + 1; seq <= pieces.length; seq++) {
    const txt = pieces[seq - 1];
    if (chunks.length > 0 && chars + txt.length > maxChars) return { chunks, more: true };
    chunks.push({ seq, txt });
    chars += txt.length;
  }
  return { chunks, more: false };
}

describe('archived pieces', () => {
  it('a range read answers exactly the chunk store page, for every cursor and cap', () => {
    const pieces = ['data: a\n\n', 'é€😀', 'x'.repeat(40), '', 'ab', '\uFEFFbom', '😀😀😀'].filter((p) => p !== '');
    const encoder = new TextEncoder();
    const builder = new PieceIndexBuilder();
    const parts = pieces.map((txt) => encoder.encode(txt));
    pieces.forEach((txt, i) => builder.add(txt, parts[i].length));
    const object = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (object.set(p, at), at + p.length), 0);
    for (let since = 0; since <= pieces.length + 2; since++) {
      for (const cap of [1, 3, 10, 45, 60, 1000]) {
        const range = pageRange(builder.index, since, cap);
        const read = object.subarray(range.offset, range.offset + range.length);
        expect({ chunks: piecesOf(read, builder.index, range), more: range.more }, `since ${since} cap ${cap}`).toEqual(storePage(pieces, since, cap));
      }
    }
  });
});
