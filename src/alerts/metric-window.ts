/**
 * A rule's window of minute points (metric_points, grain 'm') summed into the totals its condition reads,
 * with the metrics' own counters and merged latency sketch (src/metrics/). One statement, batched with the
 * other rules' reads (observe.ts).
 */
import { addAll, type Counters } from '../metrics/counters';
import { ticketValues } from '../metrics/metric-points';

export interface WindowTotals {
  consumptions: number;
  failed: number;
  flood_refused: number;
  dead_letters: number;
  /** The p95 latency of the window's consumptions, ms; null when there were none. */
  p95_ms: number | null;
}

/** The statement reading the minute points of `scope` whose bucket starts within the range. */
export const windowStatement = (db: D1Database, serviceId: string, scope: string, range: { from: number; to: number }): D1PreparedStatement =>
  db
    .prepare(`SELECT counts FROM metric_points WHERE service_id = ? AND scope = ? AND grain = 'm' AND start >= ? AND start <= ?`)
    .bind(serviceId, scope, range.from, range.to);

/** The window's totals from the rows windowStatement read: the minutes' counters merged, then read as a point. */
export function windowTotalsOf(rows: readonly Record<string, unknown>[]): WindowTotals {
  const merged: Counters = {};
  for (const row of rows) addAll(merged, JSON.parse(String(row.counts)) as Counters);
  const values = ticketValues(merged);
  return {
    consumptions: values.consumptions,
    failed: values.failed,
    flood_refused: values.flood_refused,
    dead_letters: values.dead_letters,
    p95_ms: values.latency_ms?.p95 ?? null,
  };
}
