/**
 * D1's thin index of forwarding callers (migration 0021): one row per caller of a project, so the owner's
 * view knows which callers' objects hold history. A caller's object touches its row at most once a minute
 * (TOUCH_EVERY_MS); a row's last_at is therefore at most that far behind the caller's last request.
 */
import type { HistoryOwner } from './history';

export const TOUCH_EVERY_MS = 60_000;
/** How far a caller's last request may lie after its row's last_at (the touch interval and clock skew between machines). */
export const LAST_AT_SLACK_MS = TOUCH_EVERY_MS + 5_000;

export interface CallerRow {
  caller_key: string;
  first_at: number;
  last_at: number;
}

/** Where a caller sits in the owner's walk: newest first caller first, ties by key. */
export type CallerPlace = [firstAt: number, callerKey: string];

/** Writes the caller's row: created at its first request, last_at moved on after. */
export function touchCaller(db: D1Database, owner: HistoryOwner, firstAt: number, now: number): Promise<unknown> {
  return db
    .prepare(
      `INSERT INTO forward_callers (service_id, first_at, caller_key, last_at) VALUES (?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at)`,
    )
    .bind(owner.serviceId, firstAt, owner.callerKey, now)
    .run();
}

/** Removes the caller's row (its object holds no history any more). */
export function forgetCaller(db: D1Database, owner: HistoryOwner, firstAt: number): Promise<unknown> {
  return db
    .prepare('DELETE FROM forward_callers WHERE service_id = ? AND first_at = ? AND caller_key = ?')
    .bind(owner.serviceId, firstAt, owner.callerKey)
    .run();
}

/** The caller's row as D1 has it (its first_at), or null for a caller not listed yet. */
export async function callerRow(db: D1Database, owner: HistoryOwner): Promise<CallerRow | null> {
  return await db
    .prepare('SELECT caller_key, first_at, last_at FROM forward_callers WHERE service_id = ? AND caller_key = ? LIMIT 1')
    .bind(owner.serviceId, owner.callerKey)
    .first<CallerRow>();
}

/** Up to `count` callers after `after` (exclusive) in the walk's order, or from `from` inclusive. */
export async function callersInOrder(
  db: D1Database,
  serviceId: string,
  bounds: { after?: CallerPlace; from?: CallerPlace; through?: CallerPlace; activeSince?: number; startedBy?: number },
  count: number,
): Promise<CallerRow[]> {
  const parts: string[] = [];
  const binds: unknown[] = [serviceId];
  if (bounds.after) {
    parts.push('(first_at < ? OR (first_at = ? AND caller_key > ?))');
    binds.push(bounds.after[0], bounds.after[0], bounds.after[1]);
  }
  if (bounds.from) {
    parts.push('(first_at < ? OR (first_at = ? AND caller_key >= ?))');
    binds.push(bounds.from[0], bounds.from[0], bounds.from[1]);
  }
  if (bounds.through) {
    parts.push('(first_at > ? OR (first_at = ? AND caller_key <= ?))');
    binds.push(bounds.through[0], bounds.through[0], bounds.through[1]);
  }
  if (bounds.activeSince !== undefined) {
    parts.push('last_at >= ?');
    binds.push(bounds.activeSince - LAST_AT_SLACK_MS);
  }
  if (bounds.startedBy !== undefined) {
    parts.push('first_at <= ?');
    binds.push(bounds.startedBy);
  }
  const { results } = await db
    .prepare(
      `SELECT caller_key, first_at, last_at FROM forward_callers WHERE service_id = ?${parts.map((part) => ` AND ${part}`).join('')}
       ORDER BY first_at DESC, caller_key LIMIT ?`,
    )
    .bind(...binds, count)
    .all<CallerRow>();
  return results;
}
