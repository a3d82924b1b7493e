/**
 * Metric counts of an object not yet in D1 (issue 37 item 1): added in memory where the object's work is
 * serialized (no storage write per count), written to `metric_pending` by the alarm within
 * METRICS_FLUSH_MS, and taken out by the object's report job, which pushes them to D1's metric_points. A
 * reset of the object loses at most the counts of the last METRICS_FLUSH_MS.
 */
import { addAll, type Counters } from '../src/metrics/counters';
import { MINUTE_MS } from '../src/metrics/grains';
import { pushQueries, TRIM_EVERY_MS, TRIM_QUERIES, type MinuteDelta } from '../src/metrics/metric-store';

export const PENDING_METRICS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS metric_pending (minute INTEGER NOT NULL, scope TEXT NOT NULL, counts TEXT NOT NULL, PRIMARY KEY (minute, scope)) WITHOUT ROWID;`;

/** The most counts wait in memory before the alarm writes them. */
export const METRICS_FLUSH_MS = 1_000;
/** How often an object with new counts pushes them to D1: a point shows within this. */
export const METRICS_REPORT_MS = 15_000;
/** Pending rows (a minute of one scope) one push takes. */
const ROWS_PER_PUSH = 24;
/** D1 queries one push makes at most, an hourly trim included. */
export const PUSH_QUERIES = pushQueries(ROWS_PER_PUSH, 1) + TRIM_QUERIES;

type Scheduler = { flush(at: number): void; report(at: number): void };

export class PendingMetrics {
  /** minute → scope → counters. */
  private readonly held = new Map<number, Map<string, Counters>>();
  /** When this instance last trimmed its scopes' points (0: not yet). */
  private trimmedAt = 0;

  constructor(
    private readonly sql: SqlStorage,
    private readonly schedule: Scheduler,
    private readonly now: () => number,
  ) {}

  /** Adds counters to the minute of `at` (ms) of each scope. */
  count(at: number, scopes: readonly string[], counters: Counters): void {
    this.willHold();
    const minute = Math.floor(at / MINUTE_MS) * MINUTE_MS;
    const byScope = this.held.get(minute) ?? new Map<string, Counters>();
    for (const scope of scopes) {
      const into = byScope.get(scope) ?? {};
      addAll(into, counters);
      byScope.set(scope, into);
    }
    this.held.set(minute, byScope);
  }

  /** Something is about to be held: a flush is due within METRICS_FLUSH_MS. */
  willHold(): void {
    if (this.held.size === 0) this.schedule.flush(this.now() + METRICS_FLUSH_MS);
  }

  /** Writes the held counts to storage; `more` says whether the owner has something else to report. */
  flush(more = false): void {
    for (const [minute, byScope] of this.held) {
      for (const [scope, counts] of byScope) {
        const stored = this.sql.exec<{ counts: string }>('SELECT counts FROM metric_pending WHERE minute = ? AND scope = ?', minute, scope).toArray()[0];
        const merged = stored ? (JSON.parse(stored.counts) as Counters) : {};
        addAll(merged, counts);
        this.sql.exec(
          'INSERT INTO metric_pending (minute, scope, counts) VALUES (?, ?, ?) ON CONFLICT (minute, scope) DO UPDATE SET counts = excluded.counts',
          minute,
          scope,
          JSON.stringify(merged),
        );
      }
    }
    this.held.clear();
    // addOnce: a report already due stays as it is.
    if (more || this.hasPending()) this.schedule.report(this.now() + METRICS_REPORT_MS);
  }

  /** The oldest pending counts, taken out of storage: counts added meanwhile stay for the next push. */
  take(): MinuteDelta[] {
    this.flush();
    const rows = this.sql
      .exec<{ minute: number; scope: string; counts: string }>('SELECT minute, scope, counts FROM metric_pending ORDER BY minute, scope LIMIT ?', ROWS_PER_PUSH)
      .toArray();
    for (const row of rows) this.sql.exec('DELETE FROM metric_pending WHERE minute = ? AND scope = ?', row.minute, row.scope);
    return rows.map((row) => ({ minute: row.minute, scopes: [row.scope], counts: JSON.parse(row.counts) as Counters }));
  }

  /** A push that failed: its counts go back, to be pushed again. */
  restore(deltas: MinuteDelta[]): void {
    for (const delta of deltas) this.count(delta.minute, delta.scopes, delta.counts);
  }

  /** Whether a push should trim its scopes' expired points now (at most hourly), and marks it done. */
  trimDue(now: number): boolean {
    if (now - this.trimmedAt < TRIM_EVERY_MS) return false;
    this.trimmedAt = now;
    return true;
  }

  hasPending(): boolean {
    return this.held.size > 0 || this.sql.exec('SELECT 1 FROM metric_pending LIMIT 1').toArray().length > 0;
  }
}
