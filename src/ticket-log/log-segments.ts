/**
 * The R2 segments of a ticket's log (src/ticket-log/ticket-log.ts): bodies packed by the hundred into
 * one object each, listed in the object's `log_segments` table (TICKET_LOG_SCHEMA), read a few at a
 * time for a page and deleted whole once every body in them is past the cut.
 */
import type { LogBody } from './log-body';
import type { LogScope } from './ticket-log';
import { RETENTION_DAYS } from './retention';

/** A segment holds at most this many bytes of bodies (at least one body). */
export const SEGMENT_BYTES = 2_000_000;
/** R2 keys deleted per call (R2's delete takes up to 1,000). */
const R2_DELETE_KEYS = 1_000;
/** Segments kept in memory for the next page. */
const SEGMENT_CACHE = 4;

/** The R2 prefix of a plan's segments: a lifecycle rule per prefix removes what retention would (docs/capacity.md). */
export function segmentPrefix(plan: string): string {
  const days = (RETENTION_DAYS as Record<string, number | null | undefined>)[plan];
  return typeof days === 'number' ? `logs/d${days}` : 'logs/keep';
}

/** One body as it is packed: its key, its time and its stored text. */
export type PackedBody = { log_key: string; timestamp: number; body: string };

export class LogSegments {
  private readonly cache = new Map<number, Record<string, LogBody>>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly bucket: R2Bucket,
  ) {}

  /** Stores `bodies` as the next segment of the ticket's log and lists it; returns its number. */
  async write(scope: LogScope, bodies: PackedBody[]): Promise<number> {
    const seg = this.sql.exec<{ next: number }>('SELECT COALESCE(MAX(seg), 0) + 1 AS next FROM log_segments').one().next;
    const key = `${segmentPrefix(scope.plan)}/${scope.service_id}/${scope.ticket_id}/${seg}`;
    const text = `{${bodies.map((r) => `${JSON.stringify(r.log_key)}:${r.body}`).join(',')}}`;
    // Stored before the index points at it: a crash in between leaves an object the next pack of this number overwrites.
    await this.bucket.put(key, text, { httpMetadata: { contentType: 'application/json' } });
    const newest = Math.max(...bodies.map((r) => r.timestamp));
    this.sql.exec('INSERT INTO log_segments (seg, key, newest, entries, bytes) VALUES (?, ?, ?, ?, ?)', seg, key, newest, bodies.length, text.length);
    return seg;
  }

  /** The bodies of one segment by log key; undefined when it is gone (a lifecycle rule removed it). */
  async read(seg: number): Promise<Record<string, LogBody> | undefined> {
    const cached = this.cache.get(seg);
    if (cached) return cached;
    const key = this.sql.exec<{ key: string }>('SELECT key FROM log_segments WHERE seg = ?', seg).toArray()[0]?.key;
    const object = key ? await this.bucket.get(key) : null;
    if (!object) return undefined;
    const bodies = (await object.json()) as Record<string, LogBody>;
    this.cache.set(seg, bodies);
    if (this.cache.size > SEGMENT_CACHE) this.cache.delete(this.cache.keys().next().value as number);
    return bodies;
  }

  /** The bytes the segments hold in R2. */
  bytes(): number {
    return this.sql.exec<{ n: number }>('SELECT COALESCE(SUM(bytes), 0) AS n FROM log_segments').one().n;
  }

  /** Deletes a batch of the segments whose newest body is older than `before`; true while more may remain. */
  async deleteOlderThan(before: number): Promise<boolean> {
    const gone = this.sql.exec<{ seg: number; key: string }>('SELECT seg, key FROM log_segments WHERE newest < ? LIMIT ?', before, R2_DELETE_KEYS).toArray();
    if (gone.length === 0) return false;
    await this.bucket.delete(gone.map((s) => s.key));
    this.sql.exec('DELETE FROM log_segments WHERE seg IN (SELECT value FROM json_each(?))', JSON.stringify(gone.map((s) => s.seg)));
    for (const s of gone) this.cache.delete(s.seg);
    return gone.length >= R2_DELETE_KEYS;
  }
}
