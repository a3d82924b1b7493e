/**
 * Settled streams' pieces out of the object's SQLite (issue 24): one R2 object per request under
 * `fwd/<service>/<caller hash>/<id>/stream`, the pieces' UTF-8 bytes one after another, written as a stream
 * (a 64 MiB answer never sits in memory whole); the index of where each piece ends stays in SQLite, one
 * row per request, so a read with a cursor is one range read.
 */
import type { StreamChunk } from '../schemas/forward-rules';
import { type PieceIndex, PieceIndexBuilder, pageRange, piecesOf } from '../src/forward/archived-pieces';
import type { HistoryOwner } from '../src/forward/history';
import type { ChunkPage } from './chunk-store';

export const ARCHIVE_SCHEMA = `CREATE TABLE archived_streams (
  request INTEGER PRIMARY KEY,
  object TEXT NOT NULL,
  idx TEXT NOT NULL
);`;

/** Pieces read from SQLite per step of a move. */
const MOVE_PAGE_ROWS = 64;

/** The R2 key of a request's pieces; the caller named by a hash (a user id or visitor key never appears in a key). */
export async function archiveKey(owner: HistoryOwner, id: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(owner.callerKey));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest).subarray(0, 18)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
  return `fwd/${owner.serviceId}/${hash}/${id}/stream`;
}

export interface Archived {
  object: string;
  index: PieceIndex;
}

export class StreamArchive {
  constructor(
    private readonly sql: SqlStorage,
    private readonly bucket: R2Bucket,
  ) {}

  get(request: number): Archived | null {
    const row = this.sql.exec<{ object: string; idx: string }>('SELECT object, idx FROM archived_streams WHERE request = ?', request).toArray()[0];
    return row ? { object: row.object, index: JSON.parse(row.idx) as PieceIndex } : null;
  }

  /**
   * Writes the request's pieces (from the chunks table) to `key`; answers their index, or null when there
   * are none. The caller commits (index row in, pieces out) only if nothing changed meanwhile.
   */
  async write(request: number, key: string): Promise<PieceIndex | null> {
    const { bytes, pieces } = this.sql
      .exec<{ bytes: number; pieces: number }>(
        'SELECT COALESCE(SUM(LENGTH(CAST(txt AS BLOB))), 0) AS bytes, COUNT(*) AS pieces FROM chunks WHERE request = ?',
        request,
      )
      .one();
    if (pieces === 0) return null;
    const { readable, writable } = new FixedLengthStream(bytes);
    const put = this.bucket.put(key, readable, { httpMetadata: { contentType: 'text/plain; charset=utf-8' } });
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const builder = new PieceIndexBuilder();
    let after = 0;
    try {
      for (;;) {
        const rows = this.sql
          .exec<{ seq: number; txt: string }>('SELECT seq, txt FROM chunks WHERE request = ? AND seq > ? ORDER BY seq LIMIT ?', request, after, MOVE_PAGE_ROWS)
          .toArray();
        if (rows.length === 0) break;
        for (const row of rows) {
          const encoded = encoder.encode(row.txt);
          builder.add(row.txt, encoded.length);
          await writer.write(encoded);
        }
        after = rows[rows.length - 1].seq;
      }
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => undefined);
      await put.catch(() => undefined);
      throw error;
    }
    await put;
    return builder.index;
  }

  /** Keeps the index of a written object (the pieces' rows are deleted by the caller in the same step). */
  commit(request: number, key: string, index: PieceIndex): void {
    this.sql.exec('INSERT OR REPLACE INTO archived_streams (request, object, idx) VALUES (?, ?, ?)', request, key, JSON.stringify(index));
  }

  /** The pieces after `since`, as the chunk store pages them: one range read, none when nothing follows. */
  async read(archived: Archived, since: number, maxChars: number): Promise<ChunkPage> {
    const range = pageRange(archived.index, since, maxChars);
    if (range.first > range.last) return { chunks: [], last_seq: since, more: false };
    const chunks: StreamChunk[] =
      range.length === 0
        ? piecesOf(new Uint8Array(0), archived.index, range)
        : piecesOf(await this.range(archived.object, range.offset, range.length), archived.index, range);
    return { chunks, last_seq: range.last, more: range.more };
  }

  /** Forgets the request's index; answers the object to delete. */
  forget(request: number): string | null {
    const archived = this.get(request);
    if (!archived) return null;
    this.sql.exec('DELETE FROM archived_streams WHERE request = ?', request);
    return archived.object;
  }

  delete(key: string): Promise<void> {
    return this.bucket.delete(key);
  }

  private async range(key: string, offset: number, length: number): Promise<Uint8Array> {
    const object = await this.bucket.get(key, { range: { offset, length } });
    if (!object) throw new Error(`archived stream ${key} is missing`);
    return new Uint8Array(await object.arrayBuffer());
  }
}
