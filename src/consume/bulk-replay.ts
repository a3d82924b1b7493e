/**
 * Bulk replay (issue 36 item 4, an extension), the pure part: which log entries a filter takes, the pace,
 * and whether an entry runs. A replay never runs again an action that already succeeded in its
 * consumption unless the owner asks for a full replay: a dead letter goes on from its failed action (its
 * run state is kept), and any other entry runs only if none of its actions with an effect succeeded.
 */
import type { BulkReplayFilter, ReplaySkip, ReplayState } from '../../schemas/bulk-replays';
import { LOG_CLASS } from '../ticket-log/log-body';
import type { LogSelection } from '../ticket-log/ticket-log';

/** Actions whose success has no effect outside the run: a replay may run them again. */
const WITHOUT_EFFECT = new Set(['cond', 'resp']);

/** What the owner asked, as the replay keeps it. */
export interface ReplaySpec {
  filter: BulkReplayFilter;
  full: boolean;
  per_minute: number;
  /** The end of the time range, fixed when the replay starts: entries logged later (its own replays) are not taken. */
  until: number;
}

export interface ReplayProgress {
  done: number;
  succeeded: number;
  failed: number;
  skipped: number;
  skipped_by: Partial<Record<ReplaySkip, number>>;
  /** The last entry taken (oldest first). */
  cursor: { t: number; k: string } | null;
  /** The entry being replayed now: a step cut off mid-entry leaves it here, and the next counts it as interrupted. */
  taking?: { t: number; k: string };
  /** When the next step is due (while running). */
  next_at?: number;
  /** The latest failures of replayed entries: the entry replayed and the code its replay failed with. */
  failures: { consume_id: string; code: string }[];
}

export interface BulkReplay {
  id: number;
  created_at: number;
  state: ReplayState;
  finished_at: number | null;
  total: number;
  spec: ReplaySpec;
  progress: ReplayProgress;
}

const MAX_FAILURES_LISTED = 20;

export const startingProgress = (): ReplayProgress => ({ done: 0, succeeded: 0, failed: 0, skipped: 0, skipped_by: {}, cursor: null, failures: [] });

/** The log entries a filter takes: failed consumptions by default; a code applies to failures only. */
export function selectionOf(filter: BulkReplayFilter, until: number): LogSelection {
  const outcome = filter.code !== undefined ? 'failed' : (filter.outcome ?? 'failed');
  const classes = outcome === 'any' ? [LOG_CLASS.ok, LOG_CLASS.failed] : [LOG_CLASS[outcome]];
  return {
    classes,
    from: filter.from ?? 0,
    to: Math.min(filter.to ?? until, until),
    ...(filter.code !== undefined ? { code: filter.code } : {}),
    ...(filter.consume_ids ? { logKeys: filter.consume_ids } : {}),
  };
}

/**
 * The time between steps, so that `perMinute` entries run a minute. A step replays one entry: a consumption
 * may make 50 fetches (50 req actions), the Free plan's whole budget of an invocation (docs/limits.md).
 */
export const stepIntervalMs = (perMinute: number): number => Math.ceil(60_000 / perMinute);

/** Whether the logged consumption ran an action with an effect that succeeded (its rows as the log keeps them). */
export function ranEffects(actions: readonly { act: string; detail: Record<string, unknown> }[]): boolean {
  return actions.some((row) => !WITHOUT_EFFECT.has(row.act) && row.detail.error === undefined);
}

/** Why an entry that is not a dead letter does not run; undefined when it runs. */
export function skipOf(
  entry: { code: string | null; actions: readonly { act: string; detail: Record<string, unknown> }[] },
  spec: ReplaySpec,
): ReplaySkip | undefined {
  if (spec.filter.code !== undefined && entry.code !== spec.filter.code) return 'code_differs';
  if (!spec.full && ranEffects(entry.actions)) return 'succeeded_actions';
  return undefined;
}

/** The progress after one entry. */
export function countedEntry(
  progress: ReplayProgress,
  cursor: { t: number; k: string },
  result: { skipped: ReplaySkip } | { ok: true } | { ok: false; consume_id: string; code: string },
): ReplayProgress {
  const { taking: _, ...rest } = progress;
  const next = { ...rest, done: progress.done + 1, cursor };
  if ('skipped' in result) {
    const by = { ...progress.skipped_by, [result.skipped]: (progress.skipped_by[result.skipped] ?? 0) + 1 };
    return { ...next, skipped: progress.skipped + 1, skipped_by: by };
  }
  if (result.ok) return { ...next, succeeded: progress.succeeded + 1 };
  const failure = { consume_id: result.consume_id, code: result.code };
  return { ...next, failed: progress.failed + 1, failures: [...progress.failures, failure].slice(-MAX_FAILURES_LISTED) };
}

/** A refusal as plain data: an error thrown in the object reaches the Worker without its code (RPC keeps the message only). */
export type Refusal = { refused: { code: 'INVALID_PARAMETER' | 'INVALID_REQUEST'; message: string; status: 400 | 409; detail?: Record<string, unknown> } };

export type ReplayStart = { dry_run: true; matched: number; unindexed: number; limit: number } | { dry_run: false; replay: BulkReplay } | Refusal;
