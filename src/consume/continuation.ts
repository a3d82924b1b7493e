/** A run that goes on after resp (spec 2.4): what the TicketDO stores to pick it up later. */
import type { ConsumeStore, Reservation } from './store';
import type { FailedAction, RunOutcome, RunState } from '../actions/runner';
import type { StoredRetrySchedule } from '../../schemas/retry-schedule';
import type { ErrorBody } from '../wire/errors';
import type { LogRow } from '../ticket-log/log-row';
import { sentOrigin } from './circuit-gate';
import { lastAttempt, type ScheduledFailure, type ScheduleProgress } from './retry-attempts';

export interface ContinuationJob {
  state: RunState;
  /** The log row written when the caller was answered; the closing row replaces it. */
  log: LogRow;
  project: { service_id: string; owner_id: string; plan: string };
  /** The units the consumption took; a failed run gives them back (into the generations they came from). */
  reservation?: Reservation;
  /** Jobs stored before reservations were: the signed-in consumer whose per-user count the consumption took. */
  user_id?: string;
  /** Extension: the ticket's retry schedule as it was at the consumption, and where it stands. */
  schedule?: StoredRetrySchedule;
  progress?: ScheduleProgress;
}

/** A job's reservation; a job stored before reservations were took its units under the first generations. */
const reservationOf = (job: ContinuationJob): Reservation =>
  job.reservation ?? { countGeneration: 0, ...(job.user_id ? { usage: { userId: job.user_id, generation: 0 } } : {}) };

/** outcome of a log row's description: { ok: true } or the error. */
export function outcomeOf(error: ErrorBody | undefined): Record<string, unknown> {
  if (!error) return { ok: true };
  const { code, message, stage, action, detail } = error;
  return { ok: false, code, message, stage, ...(action ? { action } : {}), ...(detail ? { detail } : {}) };
}

/**
 * A failed action as the schedule judges it: its kind, place, code and detail, the answer's headers when
 * one came, and a req's destination origin (its circuit is asked before the next attempt).
 */
export function scheduledFailure({ action, path, failure, row }: FailedAction): ScheduledFailure {
  const received = row?.received as { headers?: Record<string, string> } | undefined;
  const origin = action.act === 'req' ? sentOrigin(row) : undefined;
  return {
    act: action.act,
    path,
    code: failure.code,
    ...(failure.detail ? { detail: failure.detail } : {}),
    ...(received?.headers ? { headers: received.headers } : {}),
    ...(origin !== undefined ? { origin } : {}),
  };
}

const errorFailure = (error: ErrorBody): ScheduledFailure => ({
  act: error.action?.act ?? '',
  path: error.action?.path ?? '',
  code: error.code,
  ...(error.detail ? { detail: error.detail } : {}),
});

/** The description's continuation member: what it had, with the schedule's attempts when the ticket has one. */
function continuationOf(job: ContinuationJob, progress: ScheduleProgress | undefined, facts: Record<string, unknown>): Record<string, unknown> {
  const { next_attempt_at: _waiting, ...had } = (job.log.description.continuation ?? {}) as Record<string, unknown>;
  const attempts = progress ? { attempts: progress.records, attempts_total: progress.total } : {};
  return { ...had, ...attempts, ...facts };
}

/**
 * An attempt of the retry schedule failed and the next is due at `nextAt` (extension): the consumption's
 * open log entry lists the attempts and the next attempt's time, with the rows of the actions that
 * succeeded so far. The entry stays open; the run's outcome is not written yet.
 */
export function recordAttempt(store: ConsumeStore, job: ContinuationJob, nextAt: number, rows: RunOutcome['rows']): void {
  const row: LogRow = { ...job.log, description: { ...job.log.description, continuation: continuationOf(job, job.progress, { next_attempt_at: nextAt }) } };
  store.updateOpenLog(row, rows);
}

/**
 * Ends a continuation: a failed run gives back the count and the user's unit (as a failed
 * consumption does) and the closing log row, with the rows of this part, goes to the outbox.
 * Synchronous, so it is one atomic step of the object.
 */
export function closeContinuation(store: ConsumeStore, job: ContinuationJob, outcome: RunOutcome, now: number): void {
  const failed = outcome.error !== undefined;
  // Where a dead-letter list (issue 36 item 3) takes a run whose schedule's last attempt failed.
  if (failed) store.release(reservationOf(job));
  const progress = job.progress ? lastAttempt(job.progress, outcome.error ? errorFailure(outcome.error) : undefined, now) : undefined;
  const row: LogRow = {
    ...job.log,
    failed,
    code: outcome.error?.code ?? null,
    description: { ...job.log.description, outcome: outcomeOf(outcome.error), continuation: continuationOf(job, progress, { finished: now }) },
  };
  store.enqueueLog(row, outcome.rows, true);
}
