/**
 * The pieces of streamed answers, in a Durable Object's SQLite: appended with a sequence number (1, 2, 3, ...
 * per request) as they arrive, read back after a cursor in pages, dropped on finalize, cancel or expiry.
 */
import type { StreamChunk } from '../schemas/forward-rules';

export const CHUNKS_SCHEMA = `CREATE TABLE chunks (
  request INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  txt TEXT NOT NULL,
  PRIMARY KEY (request, seq)
) WITHOUT ROWID;`;

export interface ChunkPage {
  chunks: StreamChunk[];
  /** The last piece's seq, or the cursor when none came. */
  last_seq: number;
  /** The page was capped: more is stored after it. */
  more: boolean;
}

export class ChunkStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Stores the request's next piece; returns its seq. */
  append(request: number, txt: string): number {
    const { seq } = this.sql
      .exec<{ seq: number }>(
        'INSERT INTO chunks (request, seq, txt) SELECT ?, COALESCE(MAX(seq), 0) + 1, ? FROM chunks WHERE request = ? RETURNING seq',
        request,
        txt,
        request,
      )
      .one();
    return seq;
  }

  /** The pieces after `since`, at most `maxChars` of text (one piece always fits). */
  read(request: number, since: number, maxChars: number): ChunkPage {
    const chunks: StreamChunk[] = [];
    let chars = 0;
    for (const row of this.sql.exec<{ seq: number; txt: string }>('SELECT seq, txt FROM chunks WHERE request = ? AND seq > ? ORDER BY seq', request, since)) {
      if (chunks.length > 0 && chars + row.txt.length > maxChars) return { chunks, last_seq: chunks[chunks.length - 1].seq, more: true };
      chunks.push({ seq: row.seq, txt: row.txt });
      chars += row.txt.length;
    }
    return { chunks, last_seq: chunks.length > 0 ? chunks[chunks.length - 1].seq : since, more: false };
  }

  count(request: number): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM chunks WHERE request = ?', request).one().n;
  }

  drop(request: number): void {
    this.sql.exec('DELETE FROM chunks WHERE request = ?', request);
  }
}
