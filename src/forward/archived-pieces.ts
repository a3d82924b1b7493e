/**
 * A settled stream's pieces kept as one object (issue 24): their UTF-8 bytes one after another, and an
 * index of where each piece ends (in bytes and in characters), so a read with a cursor is one range read
 * that answers exactly the page the chunk store would (chunk-store.ts): pieces after the cursor, at most
 * `maxChars` of text unless one piece alone is longer.
 */
import type { StreamChunk } from '../../schemas/forward-rules';

/** Cumulative ends: piece n (seq n + 1) ends at byte bytes[n] and character chars[n]. */
export interface PieceIndex {
  bytes: number[];
  chars: number[];
}

export interface PageRange {
  /** Pieces first..last (seq numbers) make the page; none when first > last. */
  first: number;
  last: number;
  /** Bytes of the object to read. */
  offset: number;
  length: number;
  more: boolean;
}

/** The pieces a read after `since` answers, and where they are in the object. */
export function pageRange(index: PieceIndex, since: number, maxChars: number): PageRange {
  const count = index.bytes.length;
  const first = since + 1;
  if (first > count) return { first, last: since, offset: 0, length: 0, more: false };
  const charsBefore = since > 0 ? index.chars[since - 1] : 0;
  let last = first;
  while (last < count && index.chars[last] - charsBefore <= maxChars) last++;
  const offset = since > 0 ? index.bytes[since - 1] : 0;
  return { first, last, offset, length: index.bytes[last - 1] - offset, more: last < count };
}

/** The pieces of a range read (`bytes` starting at range.offset). */
export function piecesOf(bytes: Uint8Array, index: PieceIndex, range: PageRange): StreamChunk[] {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  const chunks: StreamChunk[] = [];
  for (let seq = range.first; seq <= range.last; seq++) {
    const start = (seq > 1 ? index.bytes[seq - 2] : 0) - range.offset;
    chunks.push({ seq, txt: decoder.decode(bytes.subarray(start, index.bytes[seq - 1] - range.offset)) });
  }
  return chunks;
}

/** Builds the index while the pieces are written, in order. */
export class PieceIndexBuilder {
  readonly index: PieceIndex = { bytes: [], chars: [] };
  private byteEnd = 0;
  private charEnd = 0;

  add(txt: string, byteLength: number): void {
    this.byteEnd += byteLength;
    this.charEnd += txt.length;
    this.index.bytes.push(this.byteEnd);
    this.index.chars.push(this.charEnd);
  }
}
