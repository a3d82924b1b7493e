/**
 * A rule's window of minute points (metric_points, grain 'm') summed into the totals its condition reads.
 * One statement, batched with the other rules' reads (observe.ts).
 */
const COUNTERS = { succeeded: 'ok', failed: 'fail', deadLetters: 'dl', floodRefused: 'fl', latency: 'lc.' } as const;

export interface WindowTotals {
  consumptions: number;
  failed: number;
  flood_refused: number;
  dead_letters: number;
  p95_ms: number | null;
}

/** The statement reading the minute points of `scope` whose bucket starts within the range. */
export const windowStatement = (db: D1Database, serviceId: string, scope: string, range: { from: number; to: number }): D1PreparedStatement =>
  db
    .prepare(`SELECT counts FROM metric_points WHERE service_id = ? AND scope = ? AND grain = 'm' AND start >= ? AND start <= ?`)
    .bind(serviceId, scope, range.from, range.to);

/** The window's totals from the rows windowStatement read. */
export function windowTotalsOf(rows: readonly Record<string, unknown>[]): WindowTotals {
  const sum: Record<string, number> = {};
  for (const row of rows) {
    for (const [name, n] of Object.entries(JSON.parse(String(row.counts)) as Record<string, number>)) sum[name] = (sum[name] ?? 0) + n;
  }
  const succeeded = sum[COUNTERS.succeeded] ?? 0;
  const failed = sum[COUNTERS.failed] ?? 0;
  return {
    consumptions: succeeded + failed,
    failed,
    flood_refused: sum[COUNTERS.floodRefused] ?? 0,
    dead_letters: sum[COUNTERS.deadLetters] ?? 0,
    p95_ms: null,
  };
}
