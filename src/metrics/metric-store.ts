/**
 * The metric points in D1: pushed as deltas by the objects that count (a ticket's, a forwarding caller's),
 * merged by the upsert (a sum per counter name), read back merged into buckets.
 */
import { addAll, nonZero, type Counters } from './counters';
import { DAY_MS, GRAINS, MINUTE_POINTS_KEPT_MS, startOf, type Grain } from './grains';

/** One minute's counts of one object, for the scopes they add to. */
export type MinuteDelta = { minute: number; scopes: string[]; counts: Counters };

/** Rows one upsert statement writes: a minute's scopes at every grain (5 bound parameters each, under D1's 100). */
const ROWS_PER_STATEMENT = 18;

// The conflict merges the stored counters with the new ones, a sum per name; counters that reach zero go.
const UPSERT_TAIL = `ON CONFLICT (service_id, scope, grain, start) DO UPDATE SET counts = (
  SELECT json_group_object(key, total) FROM (
    SELECT key, SUM(value) AS total FROM (
      SELECT key, value FROM json_each(metric_points.counts)
      UNION ALL SELECT key, value FROM json_each(excluded.counts)
    ) GROUP BY key HAVING total <> 0
  )
)`;

/** The statements adding a set of minute deltas to every grain of their scopes (one per ROWS_PER_STATEMENT rows). */
export function pushStatements(db: D1Database, serviceId: string, deltas: MinuteDelta[]): D1PreparedStatement[] {
  const rows: unknown[][] = [];
  for (const delta of deltas) {
    const counts = JSON.stringify(nonZero(delta.counts));
    if (counts === '{}') continue;
    for (const scope of delta.scopes) for (const grain of GRAINS) rows.push([serviceId, scope, grain, startOf(delta.minute, grain), counts]);
  }
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const part = rows.slice(i, i + ROWS_PER_STATEMENT);
    const values = part.map(() => '(?, ?, ?, ?, ?)').join(', ');
    statements.push(db.prepare(`INSERT INTO metric_points (service_id, scope, grain, start, counts) VALUES ${values} ${UPSERT_TAIL}`).bind(...part.flat()));
  }
  return statements;
}

/** D1 statements a push of `minutes` minutes over `scopes` scopes makes at most. */
export const pushQueries = (minutes: number, scopes: number) => Math.ceil((minutes * scopes * GRAINS.length) / ROWS_PER_STATEMENT);

/** The counters of a scope from `from` to `to` (ms), summed into buckets of `bucketMs` made of `grain` points. */
export async function readBuckets(
  db: D1Database,
  serviceId: string,
  scope: string,
  grain: Grain,
  range: { from: number; to: number; bucketMs: number },
): Promise<Map<number, Counters>> {
  const first = Math.floor(range.from / range.bucketMs) * range.bucketMs;
  const { results } = await db
    .prepare('SELECT start, counts FROM metric_points WHERE service_id = ? AND scope = ? AND grain = ? AND start >= ? AND start <= ? ORDER BY start')
    .bind(serviceId, scope, grain, first, range.to)
    .all<{ start: number; counts: string }>();
  const buckets = new Map<number, Counters>();
  for (const row of results) {
    const start = Math.floor(row.start / range.bucketMs) * range.bucketMs;
    const into = buckets.get(start) ?? {};
    addAll(into, JSON.parse(row.counts) as Counters);
    buckets.set(start, into);
  }
  return buckets;
}

/** The scopes of one kind (`key:` or `dest:`) a project has points for in a range, with their counters per bucket. */
export async function readScopesBuckets(
  db: D1Database,
  serviceId: string,
  prefix: string,
  grain: Grain,
  range: { from: number; to: number; bucketMs: number },
  limit: number,
): Promise<Map<string, Map<number, Counters>>> {
  const first = Math.floor(range.from / range.bucketMs) * range.bucketMs;
  const { results } = await db
    .prepare(
      `SELECT scope, start, counts FROM metric_points
       WHERE service_id = ?1 AND scope IN (
         SELECT DISTINCT scope FROM metric_points WHERE service_id = ?1 AND scope >= ?2 AND scope < ?3 AND grain = ?4 AND start >= ?5 AND start <= ?6 ORDER BY scope LIMIT ?7
       ) AND grain = ?4 AND start >= ?5 AND start <= ?6 ORDER BY scope, start`,
    )
    .bind(serviceId, prefix, `${prefix}\uffff`, grain, first, range.to, limit)
    .all<{ scope: string; start: number; counts: string }>();
  const scopes = new Map<string, Map<number, Counters>>();
  for (const row of results) {
    const buckets = scopes.get(row.scope) ?? new Map<number, Counters>();
    const start = Math.floor(row.start / range.bucketMs) * range.bucketMs;
    const into = buckets.get(start) ?? {};
    addAll(into, JSON.parse(row.counts) as Counters);
    buckets.set(start, into);
    scopes.set(row.scope, buckets);
  }
  return scopes;
}

/** How often an object trims its scopes' points: what expired in an hour is what one trim deletes. */
export const TRIM_EVERY_MS = 3_600_000;
/** The statements trimming a set of scopes: one per grain. */
export const TRIM_QUERIES = GRAINS.length;

/**
 * Deletes the points of the scopes a push adds to that are past what is kept: minute points after 2 days,
 * hour and day points after the plan's retention (null: kept). One statement per grain, each a range of the
 * primary key (project, scope, grain, start), so it reads only the rows it deletes.
 */
export function trimStatements(db: D1Database, serviceId: string, scopes: string[], now: number, retentionDays: number | null): D1PreparedStatement[] {
  const kept = retentionDays === null ? 0 : now - (retentionDays + 1) * DAY_MS;
  const before: Record<Grain, number> = { m: Math.max(kept, now - MINUTE_POINTS_KEPT_MS), h: kept, d: kept };
  return GRAINS.map((grain) =>
    db
      .prepare('DELETE FROM metric_points WHERE service_id = ? AND scope IN (SELECT value FROM json_each(?)) AND grain = ? AND start < ?')
      .bind(serviceId, JSON.stringify(scopes), grain, before[grain]),
  );
}

/** Sets a ticket's failures in a row as its object last counted them. */
export const streakStatement = (db: D1Database, serviceId: string, ticketId: string, streak: number, now: number) =>
  db
    .prepare(
      `INSERT INTO failure_streaks (service_id, ticket_id, streak, updated) VALUES (?, ?, ?, ?)
       ON CONFLICT (service_id, ticket_id) DO UPDATE SET streak = excluded.streak, updated = excluded.updated`,
    )
    .bind(serviceId, ticketId, streak, now);
