/**
 * The streamed side of a caller's queue object: each piece stored as it arrives (chunk-store.ts) and pushed
 * to the request's realtime room, read back after a cursor, released on finalize, cancel or expiry.
 */
import { MAX_CHUNK_PAGE_CHARS, MAX_STREAM_MS, type ForwardStatusEnvelope } from '../schemas/forward-rules';
import type { Env } from '../src/env';
import type { HistoryOwner } from '../src/forward/history';
import type { PollAnswer, StreamText } from '../src/forward/queue-store';
import type { ForwardRecord } from '../src/forward/record';
import { ChunkStore } from './chunk-store';
import { realtimeStub } from './realtime-do';

/** The longest a streamed answer is relayed: MAX_STREAM_MS, or less when the settings say so (tests). */
export function streamLimitMs(env: Env): number {
  const configured = Number(env.FORWARD_STREAM_MS);
  return Number.isFinite(configured) && configured > 0 ? Math.min(configured, MAX_STREAM_MS) : MAX_STREAM_MS;
}

export class ForwardStreams {
  private readonly chunks: ChunkStore;
  /** The realtime pushes, chained so a room receives the pieces in the order they were stored. */
  private pushes: Promise<unknown> = Promise.resolve();

  constructor(
    sql: SqlStorage,
    private readonly env: Env,
  ) {
    this.chunks = new ChunkStore(sql);
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
  read(requestSeq: number, record: ForwardRecord, envelope: ForwardStatusEnvelope, since: number): PollAnswer {
    if (!record.stream) return { kind: 'envelope', envelope: { ...envelope, stream: false, chunks: [], last_seq: since, more: false } };
    if (record.finalized) return { kind: 'finalized', json: record.response_body ?? 'null' };
    return { kind: 'envelope', envelope: { ...envelope, stream: true, ...this.chunks.read(requestSeq, since, MAX_CHUNK_PAGE_CHARS) } };
  }

  /** Every stored piece joined, cut at whole pieces once `maxChars` is passed. */
  text(requestSeq: number, maxChars: number): StreamText {
    const page = this.chunks.read(requestSeq, 0, maxChars);
    return { text: page.chunks.map((chunk) => chunk.txt).join(''), pieces: page.chunks.length, complete: !page.more };
  }

  count(requestSeq: number): number {
    return this.chunks.count(requestSeq);
  }

  drop(requestSeq: number): void {
    this.chunks.drop(requestSeq);
  }

  /** In order, never waited for, never a failure of the relay: the poll has every piece. */
  private push(owner: HistoryOwner, group: string, piece: { id: string; seq: number; txt: string }): void {
    const room = realtimeStub(this.env, owner);
    this.pushes = this.pushes.then(() => room.push(group, piece)).catch(() => 0);
  }
}
