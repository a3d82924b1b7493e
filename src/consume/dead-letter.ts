/**
 * Dead letters of a ticket (issue 36 item 3, an extension): a run after the answer whose retry schedule
 * ended on a failure it retries (the last attempt, or the window's end) is kept with why, and with its run
 * state at the failed action, so a partial replay goes on from there. A failure the schedule does not
 * retry (another 4xx, a reference that does not resolve) fails as before and is no dead letter: sending
 * it again gives the same answer. Pure: the TicketDO keeps what this shapes.
 */
import type { DeadLetterReason } from '../../schemas/dead-letters';
import { BACK_PRESSURE_STATUSES } from '../outbound/back-pressure';
import type { StoredRetrySchedule } from '../../schemas/retry-schedule';
import type { FailedAction, RunState } from '../actions/runner';
import type { LogRow } from '../ticket-log/log-row';
import { isRetried, type AttemptRecord, type ScheduledFailure, type ScheduleProgress } from './retry-attempts';

/** What the listing shows of a ticket's dead letter, besides its consumption's ids and times. */
export interface TicketDeadLetterFacts {
  reason: DeadLetterReason;
  what: string;
  act: string;
  path: string;
  status_code?: number;
  error: { code: string; message: string };
  attempts: number;
  waits: { at: number; status_code?: number; waited_ms: number }[];
}

/** A dead letter as listed: its consumption, when, and the facts of its failure. */
export interface TicketDeadLetter extends TicketDeadLetterFacts {
  consume_id: string;
  created: number;
  failed_at: number;
}

export interface TicketDeadLetterQuery {
  reason?: DeadLetterReason;
  from: number;
  to: number;
  /** The last row of the previous page (newest first). */
  after: { t: number; k: string } | null;
  count: number;
}

const statusOf = (failure: ScheduledFailure): number | undefined => {
  const status = failure.detail?.status;
  return typeof status === 'number' ? status : undefined;
};

/** Why a retried failure that ran out of attempts (or of its window) is a dead letter. */
export function deadLetterReasonOf(failure: ScheduledFailure): DeadLetterReason {
  const status = statusOf(failure);
  if (status !== undefined) return BACK_PRESSURE_STATUSES.has(status) ? 'retry_window_ended' : 'error_status';
  if (failure.code === 'TIMEOUT' || failure.detail?.reason === 'timeout') return 'timeout';
  return 'request_failed';
}

/** The waits of a schedule's attempts: the 429s and 503s waited out, oldest first. */
const waitsOf = (records: readonly AttemptRecord[]) =>
  records.flatMap((r) =>
    r.waited_ms === undefined ? [] : [{ at: r.at, ...(r.status !== undefined ? { status_code: r.status } : {}), waited_ms: r.waited_ms }],
  );

/** The dead letter's facts: the failure at its action, the attempts counted (the last one included) and the waits. */
export function deadLetterFacts(given: ScheduledFailure, message: string, url: string | undefined, progress: ScheduleProgress): TicketDeadLetterFacts {
  // Held for an open circuit until the window ended: nothing was sent, so the last answer it got says why.
  const lastStatus = progress.records.findLast((record) => record.status !== undefined)?.status;
  const failure = given.detail?.reason === 'circuit_open' && lastStatus !== undefined ? { ...given, detail: { ...given.detail, status: lastStatus } } : given;
  const status = statusOf(failure);
  return {
    reason: deadLetterReasonOf(failure),
    what: url ? `${failure.act} ${url}` : `${failure.act} at ${failure.path}`,
    act: failure.act,
    path: failure.path,
    ...(status !== undefined ? { status_code: status } : {}),
    error: { code: failure.code, message },
    attempts: progress.failed + 1,
    waits: waitsOf(progress.records),
  };
}

/**
 * The dead letter of a run whose schedule declined its failure (no next attempt): one when the schedule
 * retries that failure (it ran out of attempts or of its window) or the run was held for an open circuit
 * until its window ended; undefined for a failure the schedule never retries.
 */
export function deadLetterOf(
  failed: FailedAction,
  failure: ScheduledFailure,
  schedule: StoredRetrySchedule,
  progress: ScheduleProgress,
  log: Pick<LogRow, 'consume_id' | 'timestamp'>,
): { letter: Omit<TicketDeadLetter, 'failed_at'>; state: RunState } | undefined {
  const ranOut = isRetried(schedule, failure) || failure.detail?.reason === 'circuit_open';
  if (!ranOut || !failed.stateAt) return undefined;
  const url = (failed.row?.sent as { url?: unknown } | undefined)?.url;
  const facts = deadLetterFacts(failure, failed.failure.message, typeof url === 'string' ? url : undefined, progress);
  return { letter: { consume_id: log.consume_id, created: log.timestamp, ...facts }, state: failed.stateAt() };
}
