/**
 * Forward history has a lifetime (issue 24, item 4): a row is kept HISTORY_LIFETIME_DAYS after its last
 * change unless the caller's `expires` says otherwise, and the daily cron removes expired rows in bounded
 * runs: at most STATEMENTS_PER_RUN deletes of ROWS_PER_STATEMENT rows each (and two for body segments), the rest continued by a
 * work-queue message, so no invocation comes near D1's 50 (Free) or 1,000 queries.
 */
import type { HistoryDb } from './history-db';
import type { Env, WorkMessage } from '../env';
import { sweepExpiredSegments } from './history-segments';
import type { ForwardRecord } from './record';
import type { HistoryOwner } from './history';
import { mapWithin, OPEN_CONNECTIONS } from '../platform/open-connections';

export const HISTORY_CLEANUP_KIND = 'forward-history.cleanup';

/** How long a request stays in the history after its last change when the caller set no `expires`. */
export const HISTORY_LIFETIME_DAYS = 30;
const HISTORY_LIFETIME_MS = HISTORY_LIFETIME_DAYS * 86_400_000;
/** Rows one delete removes at most (one indexed range of `expires_at`). */
export const ROWS_PER_STATEMENT = 5_000;
/** Deletes one run (the cron, or one continuation message) may spend. */
export const STATEMENTS_PER_RUN = 20;

/** When the request's history row expires: the caller's `expires`, else the default lifetime after its last change. */
export const historyExpiry = (record: ForwardRecord): number => record.expires_at ?? record.updated + HISTORY_LIFETIME_MS;

export interface SweepResult {
  removed: number;
  statements: number;
  /** The last delete was full: more may wait. */
  more: boolean;
}

/** One bounded run: deletes rows expired at `now`, one statement at a time, until none is left or the budget is spent. */
export async function sweepExpiredHistory(db: HistoryDb, now: number, statements = STATEMENTS_PER_RUN): Promise<SweepResult> {
  let removed = 0;
  for (let spent = 1; spent <= statements; spent++) {
    const result = await db
      .prepare('DELETE FROM forward_requests WHERE rowid IN (SELECT rowid FROM forward_requests WHERE expires_at <= ? LIMIT ?)')
      .bind(now, ROWS_PER_STATEMENT)
      .run();
    removed += result.meta.changes;
    if (result.meta.changes < ROWS_PER_STATEMENT) return { removed, statements: spent, more: false };
  }
  return { removed, statements, more: true };
}

export interface HistoryCleanupMessage extends WorkMessage {
  kind: typeof HISTORY_CLEANUP_KIND;
  now: number;
}

/**
 * One run of the cleanup: expired rows, then the segments of bodies whose rows all expired (at most 1,000,
 * two statements and one R2 call); what does not fit continues in a work-queue message.
 */
export async function runHistoryCleanup(env: Env, now: number, statements = STATEMENTS_PER_RUN): Promise<void> {
  const rows = await sweepExpiredHistory(env.DB, now, statements);
  const segments = await sweepExpiredSegments(env.DB, env.BODIES, now);
  if (rows.more || segments.removed === 1000) await env.WORK_QUEUE.send({ kind: HISTORY_CLEANUP_KIND, now } satisfies HistoryCleanupMessage);
}

/** Work-queue consumer of a cleanup continuation. */
export const historyCleanupJob = (message: HistoryCleanupMessage, env: Env): Promise<void> => runHistoryCleanup(env, message.now);

/** One run of a caller's object's sweep of its own history: expired rows, then segments whose rows all expired; whether more wait. */
export async function runHistorySweep(db: HistoryDb, bucket: R2Bucket, now: number): Promise<boolean> {
  const rows = await sweepExpiredHistory(db, now);
  const segments = await sweepExpiredSegments(db, bucket, now);
  return rows.more || segments.removed === 1000;
}

/** Callers whose rows D1 still holds (from before migration 0021) woken per cron run, so their objects move them. */
export const LEGACY_CALLERS_PER_RUN = 10;

/**
 * Wakes the objects of callers whose history rows D1 still holds: each moves its rows on its first history
 * call (durable-objects/history-import.ts). A backstop for callers no request or listing reaches.
 */
export async function wakeLegacyCallers(db: D1Database, wake: (owner: HistoryOwner) => Promise<void>): Promise<number> {
  const { results } = await db
    .prepare('SELECT service_id, caller_key FROM forward_requests GROUP BY service_id, caller_key LIMIT ?')
    .bind(LEGACY_CALLERS_PER_RUN)
    .all<{ service_id: string; caller_key: string }>();
  await mapWithin(results, OPEN_CONNECTIONS, (row) => wake({ serviceId: row.service_id, callerKey: row.caller_key }));
  return results.length;
}
