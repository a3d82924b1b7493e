/** A run that goes on after resp (spec 2.4): what the TicketDO stores to pick it up later. */
import type { ConsumeStore, Reservation } from './store';
import type { RunOutcome, RunState } from '../actions/runner';
import type { ErrorBody } from '../wire/errors';
import type { LogRow } from '../ticket-log/log-row';

export interface ContinuationJob {
  state: RunState;
  /** The log row written when the caller was answered; the closing row replaces it. */
  log: LogRow;
  project: { service_id: string; owner_id: string; plan: string };
  /** The units the consumption took; a failed run gives them back (into the generations they came from). */
  reservation?: Reservation;
  /** Jobs stored before reservations were: the signed-in consumer whose per-user count the consumption took. */
  user_id?: string;
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
 * Ends a continuation: a failed run gives back the count and the user's unit (as a failed
 * consumption does) and the closing log row, with the rows of this part, goes to the outbox.
 * Synchronous, so it is one atomic step of the object.
 */
export function closeContinuation(store: ConsumeStore, job: ContinuationJob, outcome: RunOutcome, now: number): void {
  const failed = outcome.error !== undefined;
  if (failed) store.release(reservationOf(job));
  const continuation = (job.log.description.continuation ?? {}) as Record<string, unknown>;
  const row: LogRow = {
    ...job.log,
    failed,
    code: outcome.error?.code ?? null,
    description: { ...job.log.description, outcome: outcomeOf(outcome.error), continuation: { ...continuation, finished: now } },
  };
  store.enqueueLog(row, outcome.rows, true);
}
