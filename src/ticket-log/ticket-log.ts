/**
 * A ticket's consumption log, in its own object: a small index row per consumption in SQLite (`log`),
 * the bodies (description, kept request, action rows) in a table of their own (`log_bodies`) only while
 * they are the newest of their outcome class, then packed into R2 segments of up to SEGMENT_ENTRIES and
 * deleted there. Keeping the bodies out of the index's pages keeps those pages full of index rows (a
 * body nulled in place would leave each page mostly empty). A page of one class spans one or two
 * segments, so a listing reads a few objects, never one per row (docs/capacity.md).
 */
import type { ActionRow } from '../actions/types';
import type { LogRow } from './log-row';
import { LOG_CLASS, bodyOf, classOf, closedBody, encodeBody, type IndexFacts, type LogBody } from './log-body';
import type { LogPageQuery } from './log-rows';
import { LogSegments, SEGMENT_BYTES, type PackedBody } from './log-segments';
import { retentionCutoff } from './retention';
import { searchLog, type LogSearchPage, type LogSearchRequest } from './log-search';

/** A body moves to a segment once its class has this many in SQLite. */
export const SEGMENT_ENTRIES = 100;
/** Index rows deleted per statement by a clear or retention step. */
const DELETE_CHUNK = 5_000;
/** Retention runs at most this often, beside a compaction. */
const RETENTION_EVERY_MS = 3_600_000;

export const TICKET_LOG_SCHEMA = `
  CREATE TABLE IF NOT EXISTS log (
    log_key TEXT PRIMARY KEY,
    timestamp INTEGER NOT NULL,
    class INTEGER NOT NULL,
    seg INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS log_by_class ON log (class, timestamp, log_key);
  CREATE TABLE IF NOT EXISTS log_bodies (
    log_key TEXT NOT NULL UNIQUE,
    class INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,
    open INTEGER NOT NULL,
    body TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS log_bodies_by_class ON log_bodies (class, open, timestamp);
  CREATE TABLE IF NOT EXISTS log_segments (seg INTEGER PRIMARY KEY, key TEXT NOT NULL, newest INTEGER NOT NULL, entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS log_segments_by_newest ON log_segments (newest);
  CREATE TABLE IF NOT EXISTS log_meta (id INTEGER PRIMARY KEY CHECK (id = 1), service_id TEXT NOT NULL, ticket_id TEXT NOT NULL, plan TEXT NOT NULL, retained_at INTEGER NOT NULL DEFAULT 0);`;

/** Which ticket this object logs for, and under which plan (the segments' prefix and the retention). */
export type LogScope = {
  service_id: string;
  ticket_id: string;
  plan: string;
};

type IndexRow = IndexFacts & { seg: number | null; body: string | null };

/** An index row with its body, when the body is still in SQLite. */
const WITH_BODY = 'SELECT l.log_key, l.timestamp, l.class, l.seg, b.body FROM log l LEFT JOIN log_bodies b ON b.log_key = l.log_key';

export class TicketLog {
  private bound?: LogScope;
  private readonly segments: LogSegments;
  /** Bodies in SQLite per class, once counted: how many, and their bytes. */
  private tail?: Map<number, { n: number; bytes: number }>;

  constructor(
    private readonly sql: SqlStorage,
    bucket: R2Bucket,
    private readonly now: () => number,
  ) {
    this.segments = new LogSegments(sql, bucket);
  }

  /** Run before the log is read or changed (see beforeUse). */
  private settle?: () => void;

  /** `write` runs before every read or change of the log, so counts held in memory are in what it reads (src/ticket-log/log-sampler.ts). */
  beforeUse(write: () => void): void {
    this.settle = write;
  }

  /** Records which ticket and plan the log is for (read from storage after an eviction). */
  bind(scope: LogScope): void {
    const known = this.scope();
    if (known && known.service_id === scope.service_id && known.ticket_id === scope.ticket_id && known.plan === scope.plan) return;
    this.sql.exec(
      `INSERT INTO log_meta (id, service_id, ticket_id, plan) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET service_id = excluded.service_id, ticket_id = excluded.ticket_id, plan = excluded.plan`,
      scope.service_id,
      scope.ticket_id,
      scope.plan,
    );
    this.bound = scope;
  }

  scope(): LogScope | undefined {
    this.bound ??= this.sql.exec<LogScope>('SELECT service_id, ticket_id, plan FROM log_meta').toArray()[0];
    return this.bound;
  }

  /**
   * Appends an entry, or closes one (final: a run that went on after resp ended; with stillOpen, an
   * attempt of its retry schedule replaced it and it stays open). An entry whose run goes on stays in
   * SQLite (open) until closed, so closing it never waits on R2. Returns whether a segment is due.
   */
  write(row: LogRow, actions: ActionRow[], final: boolean, stillOpen = false): boolean {
    if (!final) return this.put(row.log_key, row.timestamp, classOf(row), bodyOf(row, actions), row.description.continuation !== undefined, false);
    const current = this.sql.exec<{ body: string }>('SELECT body FROM log_bodies WHERE log_key = ?', row.log_key).toArray()[0];
    // The entry was cleared meanwhile: its closing row has nothing to close.
    if (!current) return false;
    return this.put(row.log_key, row.timestamp, classOf(row), closedBody(JSON.parse(current.body) as LogBody, row, actions), stillOpen, true);
  }

  /** Writes an entry's index row and its body into SQLite (a replaced one leaves its segment's stale copy unread). */
  private put(logKey: string, timestamp: number, cls: number, body: LogBody, open: boolean, replace: boolean): boolean {
    const text = encodeBody(body);
    const tail = this.tailCounts();
    const inserted = this.sql.exec(
      `INSERT INTO log (log_key, timestamp, class, seg, code) VALUES (?, ?, ?, NULL, ?)
       ON CONFLICT (log_key) DO ${replace ? 'UPDATE SET class = excluded.class, seg = NULL, code = excluded.code' : 'NOTHING'}`,
      logKey,
      timestamp,
      cls,
      body.code ?? null,
    ).rowsWritten;
    if (!replace && inserted === 0) return this.compactionDue();
    this.sql.exec(
      `INSERT INTO log_bodies (log_key, class, timestamp, open, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (log_key) DO UPDATE SET class = excluded.class, open = excluded.open, body = excluded.body`,
      logKey,
      cls,
      timestamp,
      open ? 1 : 0,
      text,
    );
    if (replace) this.tail = undefined;
    else if (!open) {
      const now = tail.get(cls) ?? { n: 0, bytes: 0 };
      tail.set(cls, { n: now.n + 1, bytes: now.bytes + text.length });
    }
    return this.compactionDue();
  }

  /** Writes a summary of counted entries (src/ticket-log/log-sampler.ts): held open, so never packed, while its minute counts on. */
  openSummary(logKey: string, timestamp: number, cls: number, body: LogBody): void {
    this.put(logKey, timestamp, cls, body, true, false);
  }

  /** Sets the counts of an open summary in place; false when it is no longer held open here (closed, packed or cleared). */
  countInSummary(logKey: string, update: [path: string, value: string | number][]): boolean {
    return (
      this.sql.exec(
        `UPDATE log_bodies SET body = json_set(body, ${update.map(() => '?, ?').join(', ')}) WHERE log_key = ? AND open = 1`,
        ...update.flat(),
        logKey,
      ).rowsWritten > 0
    );
  }

  /** The summaries of a minute that ended: packed like any entry from now on. */
  closeSummaries(logKeys: string[]): void {
    this.sql.exec('UPDATE log_bodies SET open = 0 WHERE log_key IN (SELECT value FROM json_each(?))', JSON.stringify(logKeys));
    this.tail = undefined;
  }

  /** The bytes the log stores: bodies in SQLite (UTF-8) and in R2, and a fixed `overhead` per entry for its index row. */
  storedBytes(overhead: number): number {
    this.settle?.();
    const bodies = this.sql.exec<{ n: number }>('SELECT COALESCE(SUM(length(CAST(body AS BLOB))), 0) AS n FROM log_bodies').one().n;
    return bodies + this.segmentBytes() + this.count() * overhead;
  }

  /** Entries of runs that went on after resp are no longer held open (the ticket was deleted with its runs). */
  releaseOpen(): void {
    this.settle?.();
    this.sql.exec('UPDATE log_bodies SET open = 0 WHERE open = 1');
    this.tail = undefined;
  }

  private tailCounts(): Map<number, { n: number; bytes: number }> {
    this.tail ??= new Map(
      this.sql
        .exec<{ class: number; n: number; bytes: number }>(
          'SELECT class, COUNT(*) AS n, SUM(length(body)) AS bytes FROM log_bodies WHERE open = 0 GROUP BY class',
        )
        .toArray()
        .map((r) => [r.class, { n: r.n, bytes: r.bytes }]),
    );
    return this.tail;
  }

  /** The class with a segment's worth of bodies in SQLite (by count or by bytes), if one has. */
  private fullClass(): number | undefined {
    return [...this.tailCounts().entries()].find(([, t]) => t.n >= SEGMENT_ENTRIES || t.bytes >= SEGMENT_BYTES)?.[0];
  }

  /** Whether some class has a segment's worth of bodies in SQLite. */
  compactionDue(): boolean {
    return this.fullClass() !== undefined;
  }

  /** Packs the oldest bodies of one full class into a segment; true while more are due. Retention rides along. */
  async compact(): Promise<boolean> {
    this.settle?.();
    const scope = this.scope();
    const full = this.fullClass();
    if (scope && full !== undefined) await this.packSegment(scope, full);
    if (scope) await this.retainIfDue(scope);
    return this.compactionDue();
  }

  private async packSegment(scope: LogScope, cls: number): Promise<void> {
    const rows = this.sql
      .exec<PackedBody>(
        'SELECT log_key, timestamp, body FROM log_bodies WHERE class = ? AND open = 0 ORDER BY timestamp, log_key LIMIT ?',
        cls,
        SEGMENT_ENTRIES,
      )
      .toArray();
    const taken: typeof rows = [];
    let bytes = 0;
    for (const row of rows) {
      if (taken.length > 0 && bytes + row.body.length > SEGMENT_BYTES) break;
      taken.push(row);
      bytes += row.body.length;
    }
    if (taken.length === 0) return;
    const seg = await this.segments.write(scope, taken);
    const keys = JSON.stringify(taken.map((r) => r.log_key));
    this.sql.exec('UPDATE log SET seg = ? WHERE log_key IN (SELECT value FROM json_each(?))', seg, keys);
    this.sql.exec('DELETE FROM log_bodies WHERE log_key IN (SELECT value FROM json_each(?))', keys);
    this.tail = undefined;
  }

  /** One page of the listing, newest first, each row with its body. */
  async page(query: LogPageQuery): Promise<{ index: IndexFacts; body: LogBody }[]> {
    this.settle?.();
    const classes = query.outcome ? [LOG_CLASS[query.outcome]] : Object.values(LOG_CLASS);
    const after = query.after ? 'AND (timestamp < ? OR (timestamp = ? AND log_key < ?))' : '';
    const part = `SELECT * FROM (SELECT log_key, timestamp, class, seg FROM log
                   WHERE class = ? AND timestamp BETWEEN ? AND ? ${after}
                   ORDER BY timestamp DESC, log_key DESC LIMIT ?)`;
    const args = classes.flatMap((cls) => [cls, query.from, query.to, ...(query.after ? [query.after.t, query.after.t, query.after.k] : []), query.count]);
    const rows = this.sql
      .exec<IndexRow>(
        `SELECT p.log_key, p.timestamp, p.class, p.seg, b.body FROM (${classes.map(() => part).join(' UNION ALL ')} ORDER BY timestamp DESC, log_key DESC LIMIT ?) p
         LEFT JOIN log_bodies b ON b.log_key = p.log_key ORDER BY p.timestamp DESC, p.log_key DESC`,
        ...args,
        query.count,
      )
      .toArray();
    return this.withBodies(rows);
  }

  /**
   * A bulk replay's selection (extension), oldest first after a cursor: consumptions (never dry runs) of
   * the classes asked, in a time range, with an error code (an entry logged before codes were indexed has
   * none here and is judged by its body when read), or among the consume_ids given.
   */
  replayKeys(selection: LogSelection, after: { t: number; k: string } | null, count: number): { log_key: string; timestamp: number }[] {
    this.settle?.();
    const { where, args } = selectionSql(selection);
    const cursor = after ? 'AND (timestamp > ? OR (timestamp = ? AND log_key > ?))' : '';
    return this.sql
      .exec<{ log_key: string; timestamp: number }>(
        `SELECT log_key, timestamp FROM log WHERE ${where} ${cursor} ORDER BY timestamp, log_key LIMIT ?`,
        ...args,
        ...(after ? [after.t, after.t, after.k] : []),
        count,
      )
      .toArray();
  }

  /** How many entries a bulk replay's selection matches, and how many of them have no indexed code (judged when read). */
  replayCount(selection: LogSelection): { matched: number; unindexed: number } {
    this.settle?.();
    const { where, args } = selectionSql(selection);
    const row = this.sql
      .exec<{ matched: number; unindexed: number }>(`SELECT COUNT(*) AS matched, COALESCE(SUM(code IS NULL), 0) AS unindexed FROM log WHERE ${where}`, ...args)
      .one();
    return selection.code === undefined ? { matched: row.matched, unindexed: 0 } : row;
  }

  /** One entry by its log key, with its body; undefined when the log has none. */
  async entry(logKey: string): Promise<{ index: IndexFacts; body: LogBody } | undefined> {
    this.settle?.();
    const row = this.sql.exec<IndexRow>(`${WITH_BODY} WHERE l.log_key = ?`, logKey).toArray()[0];
    return row ? (await this.withBodies([row]))[0] : undefined;
  }

  /** Entries by log key (those the log has), in the order asked. */
  async entries(logKeys: string[]): Promise<{ index: IndexFacts; body: LogBody }[]> {
    this.settle?.();
    const rows = this.sql.exec<IndexRow>(`${WITH_BODY} WHERE l.log_key IN (SELECT value FROM json_each(?))`, JSON.stringify(logKeys)).toArray();
    const found = new Map((await this.withBodies(rows)).map((e) => [e.index.log_key, e]));
    return logKeys.flatMap((key) => found.get(key) ?? []);
  }

  /** One bounded page of the event inspector's search (extension, src/ticket-log/log-search.ts). */
  async search(request: LogSearchRequest): Promise<LogSearchPage> {
    this.settle?.();
    return searchLog(this.sql, this.segments, request);
  }

  /** Every entry, oldest first (tests and operations; a bounded log only). */
  async all(): Promise<{ index: IndexFacts; body: LogBody }[]> {
    this.settle?.();
    return this.withBodies(this.sql.exec<IndexRow>(`${WITH_BODY} ORDER BY l.timestamp, l.log_key`).toArray());
  }

  /** The bytes this log holds in R2 (its segments). */
  segmentBytes(): number {
    return this.segments.bytes();
  }

  count(): number {
    this.settle?.();
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM log').one().n;
  }

  /** Bodies from SQLite or their segments: one R2 read per distinct segment. A segment gone (lifecycle) drops its rows. */
  private async withBodies(rows: IndexRow[]): Promise<{ index: IndexFacts; body: LogBody }[]> {
    const wanted = [...new Set(rows.flatMap((r) => (r.body === null && r.seg !== null ? [r.seg] : [])))];
    const loaded = new Map(await Promise.all(wanted.map(async (seg) => [seg, await this.segments.read(seg)] as const)));
    return rows.flatMap((r) => {
      const text = r.body;
      const body = text !== null ? (JSON.parse(text) as LogBody) : r.seg !== null ? loaded.get(r.seg)?.[r.log_key] : undefined;
      return body ? [{ index: { log_key: r.log_key, timestamp: r.timestamp, class: r.class }, body }] : [];
    });
  }

  /** Sets a warning on one action row of a consumption (a newsletter batch that went out but could not be counted). */
  async setActionWarning(consumeId: string, path: string, warning: string): Promise<boolean> {
    const current = await this.entry(consumeId);
    if (!current) return false;
    const actions = current.body.actions.map((a) => (a.path === path ? { ...a, detail: { ...a.detail, warning } } : a));
    const open = this.sql.exec<{ open: number }>('SELECT open FROM log_bodies WHERE log_key = ?', consumeId).toArray()[0]?.open === 1;
    this.put(consumeId, current.index.timestamp, current.index.class, { ...current.body, actions }, open, true);
    return true;
  }

  /** One step of deleting entries older than `before`, with the segments that hold only such entries; true while more remain. */
  async deleteBefore(before: number): Promise<boolean> {
    this.settle?.();
    let more = false;
    for (const cls of Object.values(LOG_CLASS)) {
      this.sql.exec(
        'DELETE FROM log WHERE log_key IN (SELECT log_key FROM log WHERE class = ? AND timestamp < ? ORDER BY timestamp LIMIT ?)',
        cls,
        before,
        DELETE_CHUNK,
      );
      if (this.sql.exec<{ n: number }>('SELECT changes() AS n').one().n >= DELETE_CHUNK) more = true;
      this.sql.exec(
        'DELETE FROM log_bodies WHERE class = ? AND timestamp < ? AND NOT EXISTS (SELECT 1 FROM log WHERE log.log_key = log_bodies.log_key)',
        cls,
        before,
      );
    }
    this.tail = undefined;
    if (await this.segments.deleteOlderThan(before)) more = true;
    return more;
  }

  private async retainIfDue(scope: LogScope): Promise<void> {
    const now = this.now();
    const cutoff = retentionCutoff(scope.plan, now);
    const last = this.sql.exec<{ at: number }>('SELECT retained_at AS at FROM log_meta').toArray()[0]?.at ?? 0;
    if (cutoff === null || now - last < RETENTION_EVERY_MS) return;
    const more = await this.deleteBefore(cutoff);
    if (!more) this.sql.exec('UPDATE log_meta SET retained_at = ?', now);
  }

  /** Takes rows in (from D1, where the log was kept before): each once, as they were. */
  takeIn(entries: { row: LogRow; actions: ActionRow[] }[]): void {
    for (const { row, actions } of entries) this.put(row.log_key, row.timestamp, classOf(row), bodyOf(row, actions), false, false);
  }
}

/** Which log entries a bulk replay takes (src/consume/bulk-replay.ts builds it from the owner's filter). */
export interface LogSelection {
  classes: number[];
  from: number;
  to: number;
  code?: string;
  logKeys?: string[];
}

function selectionSql(selection: LogSelection): { where: string; args: SqlStorageValue[] } {
  const parts = [`class IN (${selection.classes.map(() => '?').join(', ')})`, 'timestamp BETWEEN ? AND ?'];
  const args: SqlStorageValue[] = [...selection.classes, selection.from, selection.to];
  if (selection.code !== undefined) {
    parts.push('(code = ? OR code IS NULL)');
    args.push(selection.code);
  }
  if (selection.logKeys) {
    parts.push('log_key IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(selection.logKeys));
  }
  return { where: parts.join(' AND '), args };
}
