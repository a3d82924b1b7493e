/**
 * The streamed side of a caller's queue object: each piece stored as it arrives (chunk-store.ts) and pushed
 * to the request's realtime room, read back after a cursor, released on finalize, cancel or expiry. Once the
 * request settled the pieces move to one R2 object (stream-archive.ts) and are read from there.
 */
import { MAX_CHUNK_PAGE_CHARS, MAX_STREAM_MS, type ForwardStatusEnvelope } from '../schemas/forward-rules';
import type { Env } from '../src/env';
import type { HistoryOwner } from '../src/forward/history';
import type { PollAnswer, StreamText } from '../src/forward/queue-store';
import type { ForwardRecord } from '../src/forward/record';
import { type ChunkPage, ChunkStore } from './chunk-store';
import { StreamArchive } from './stream-archive';
import { realtimeStub } from '../src/platform/object-stubs';

/** The longest a streamed answer is relayed: MAX_STREAM_MS, or less when the settings say so (tests). */
export function streamLimitMs(env: Env): number {
  const configured = Number(env.FORWARD_STREAM_MS);
  return Number.isFinite(configured) && configured > 0 ? Math.min(configured, MAX_STREAM_MS) : MAX_STREAM_MS;
}

export class ForwardStreams {
  private readonly chunks: ChunkStore;
  private readonly archive: StreamArchive;
  /** The realtime pushes, chained so a room receives the pieces in the order they were stored. */
  private pushes: Promise<unknown> = Promise.resolve();

  constructor(
    sql: SqlStorage,
    private readonly env: Env,
  ) {
    this.chunks = new ChunkStore(sql);
    this.archive = new StreamArchive(sql, env.BODIES);
  }

  /** Where the pieces of a running request go: stored, then pushed to its room; nothing once `signal` aborted. */
  sink(requestSeq: number, record: ForwardRecord, owner: HistoryOwner, signal: AbortSignal): (txt: string) => void {
    return (txt) => {
      if (signal.aborted) return;
      const seq = this.chunks.append(requestSeq, txt);
      if (record.realtime_group) this.push(owner, record.realtime_group, { id: record.id, seq, txt });
    };
  }

  /** A poll with a cursor: the pieces after `since`, the kept version once finalized, or none for a plain request. */
  async read(requestSeq: number, record: ForwardRecord, envelope: ForwardStatusEnvelope, since: number): Promise<PollAnswer> {
    if (!record.stream) return { kind: 'envelope', envelope: { ...envelope, stream: false, chunks: [], last_seq: since, more: false } };
    if (record.finalized) return { kind: 'finalized', json: record.response_body ?? 'null' };
    return { kind: 'envelope', envelope: { ...envelope, stream: true, ...(await this.page(requestSeq, since, MAX_CHUNK_PAGE_CHARS)) } };
  }

  /** Every stored piece joined, cut at whole pieces once `maxChars` is passed. */
  async text(requestSeq: number, maxChars: number): Promise<StreamText> {
    const page = await this.page(requestSeq, 0, maxChars);
    return { text: page.chunks.map((chunk) => chunk.txt).join(''), pieces: page.chunks.length, complete: !page.more };
  }

  count(requestSeq: number): number {
    return this.archive.get(requestSeq)?.index.bytes.length ?? this.chunks.count(requestSeq);
  }

  /** Drops the pieces; answers the R2 object that held them, which the caller deletes (null when none). */
  drop(requestSeq: number): string | null {
    this.chunks.drop(requestSeq);
    return this.archive.forget(requestSeq);
  }

  /**
   * Moves a settled request's pieces to `key` in R2; the pieces leave SQLite only if `unchanged` still holds
   * once the object is written (a finalize or removal meanwhile wins: the object is deleted again).
   */
  async move(requestSeq: number, key: string, unchanged: () => boolean): Promise<void> {
    if (this.archive.get(requestSeq)) return;
    const pieces = this.chunks.count(requestSeq);
    const index = await this.archive.write(requestSeq, key);
    if (!index) return;
    if (!unchanged() || this.chunks.count(requestSeq) !== pieces) {
      await this.archive.delete(key);
      return;
    }
    this.archive.commit(requestSeq, key, index);
    this.chunks.drop(requestSeq);
  }

  /** Deletes an R2 object of pieces dropped earlier. */
  deleteMoved(key: string): Promise<void> {
    return this.archive.delete(key);
  }

  private page(requestSeq: number, since: number, maxChars: number): Promise<ChunkPage> {
    const archived = this.archive.get(requestSeq);
    return archived ? this.archive.read(archived, since, maxChars) : Promise.resolve(this.chunks.read(requestSeq, since, maxChars));
  }

  /** In order, never waited for, never a failure of the relay: the poll has every piece. */
  private push(owner: HistoryOwner, group: string, piece: { id: string; seq: number; txt: string }): void {
    const room = realtimeStub(this.env, owner);
    this.pushes = this.pushes.then(() => room.push(group, piece)).catch(() => 0);
  }
}
