import type { OwnerLogRow } from '../../schemas/listings';

/** One row of a ticket's consumption log (owner listing). */
export type LogRow = OwnerLogRow;

/**
 * How far back each poll of `svc logs --follow` reads. Log rows reach the listing through an outbox,
 * so a row may be listed after a newer one: re-reading a window and skipping the rows already shown
 * prints a late row instead of losing it.
 */
export const LOOKBACK_MS = 60_000;

/** What --follow has printed: the keys of the rows inside the window, and the newest time seen. */
export interface FollowState {
  newest: number;
  seen: Map<string, number>;
}

const byTime = (a: LogRow, b: LogRow) => a.timestamp - b.timestamp || (a.log_key < b.log_key ? -1 : a.log_key > b.log_key ? 1 : 0);

/** Where the next poll starts (its `from`). */
export const nextFrom = (state: FollowState) => Math.max(0, state.newest - LOOKBACK_MS);

/** The rows not shown yet, oldest first, and the state after showing them. */
export function takeNew(state: FollowState, rows: readonly LogRow[]): { rows: LogRow[]; state: FollowState } {
  const fresh = rows.filter((row) => !state.seen.has(row.log_key)).sort(byTime);
  const newest = Math.max(state.newest, ...fresh.map((row) => row.timestamp));
  const seen = new Map(state.seen);
  for (const row of fresh) seen.set(row.log_key, row.timestamp);
  const from = Math.max(0, newest - LOOKBACK_MS);
  for (const [key, time] of seen) if (time < from) seen.delete(key);
  return { rows: fresh, state: { newest, seen } };
}

export const emptyFollowState = (): FollowState => ({ newest: 0, seen: new Map() });
