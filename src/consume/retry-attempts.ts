/**
 * The retry schedule at work (extension, docs/api.md "Retrying work after the answer"): whether a failure
 * of the run after resp is tried again, and when. Pure: the clock and the random source are given.
 */
import { durationUpTo } from '../../schemas/durations';
import { MAX_RETRY_DELAY_MS, MAX_RETRY_WITHIN_MS, type StoredRetrySchedule } from '../../schemas/retry-schedule';
import { BACK_PRESSURE_STATUSES, backoffMs, requestedWait } from '../outbound/back-pressure';

/** One attempt of the run after resp as its log entry lists it. */
export interface AttemptRecord {
  /** When the attempt ended, ms since the epoch. */
  at: number;
  ok: boolean;
  /** The failed action's place, its error code and the status it was answered with. */
  path?: string;
  code?: string;
  status?: number;
  /** A 429 or 503 waited out (it did not use up an attempt): how long, and what asked for it ('retry-after', a reset header, 'backoff'). */
  waited_ms?: number;
  wait_from?: string;
  /** Extension (circuit): not an attempt but a hold: the action's destination's circuit was open, nothing was sent (waited_ms: how long). */
  waited?: 'circuit';
}

/** Where a schedule stands; kept in the continuation's job. */
export interface ScheduleProgress {
  /** When the first attempt started: no attempt starts after this plus the window. */
  started_at: number;
  /** Attempts made that failed and counted (a back-pressure wait does not count). */
  failed: number;
  /** Back-pressure waits since the last counted attempt (their backoff doubles). */
  waits: number;
  /** Attempts so far, oldest first, the latest MAX_RECORDS. */
  records: AttemptRecord[];
  /** Attempts so far in all (records keeps only the latest); a hold for a circuit is listed, not counted. */
  total: number;
  /** The origin the failed `req` the run stands at was sent to: the next attempt asks its circuit first. */
  origin?: string;
}

/** A failure as the run reports it: the action's kind, its error and the answer's headers when one came. */
export interface ScheduledFailure {
  act: string;
  path: string;
  code: string;
  detail?: Record<string, unknown>;
  headers?: Readonly<Record<string, string>>;
  /** A `req`'s destination origin, when it was sent. */
  origin?: string;
}

/** Records kept per run: a week of 1-second waits would outgrow a job row. */
export const MAX_RECORDS = 20;
/** Jitter: each delay is drawn from this share of it to its inverse's, so retries of many runs spread out. */
const JITTER = 0.2;

export const startProgress = (now: number): ScheduleProgress => ({ started_at: now, failed: 0, waits: 0, records: [], total: 0 });

const ms = (duration: string, max: number): number => durationUpTo(duration, max) ?? max;

/** The wait before attempt `attempt` (2 = the first retry), before jitter: its delay, the last repeating. */
export function delayBefore(schedule: StoredRetrySchedule, attempt: number): number {
  const index = Math.min(Math.max(attempt - 2, 0), schedule.delays.length - 1);
  return ms(schedule.delays[index] ?? '1s', MAX_RETRY_DELAY_MS);
}

/** A delay with jitter: from (1 - JITTER) to (1 + JITTER) of it, never under a second. */
export function jittered(delayMs: number, random: () => number): number {
  const share = 1 - JITTER + 2 * JITTER * Math.min(1, Math.max(0, random()));
  return Math.max(1_000, Math.round(delayMs * share));
}

/** The window's end: no attempt starts after it. */
export const windowEnd = (schedule: StoredRetrySchedule, progress: ScheduleProgress): number => progress.started_at + ms(schedule.within, MAX_RETRY_WITHIN_MS);

const statusOf = (failure: ScheduledFailure): number | undefined => {
  const status = failure.detail?.status;
  return typeof status === 'number' ? status : undefined;
};

/**
 * Whether the schedule retries this failure: an answer with a listed status, no answer (network), or a
 * request past its time limit. Anything else (a reference that does not resolve, a refused destination,
 * any other 4xx) would fail the same way again.
 */
export function isRetried(schedule: StoredRetrySchedule, failure: ScheduledFailure): boolean {
  const { on } = schedule;
  if (failure.code === 'TIMEOUT') return on.timeout;
  if (failure.code !== 'REQUEST_FAILED') return false;
  const status = statusOf(failure);
  if (status !== undefined) return on.statuses.some((listed) => listed === status || (listed === '5xx' && status >= 500 && status <= 599));
  const reason = failure.detail?.reason;
  if (reason === 'unreachable') return on.network;
  if (reason === 'timeout') return on.timeout;
  return false;
}

const withRecord = (progress: ScheduleProgress, record: AttemptRecord): Pick<ScheduleProgress, 'records' | 'total'> => ({
  records: [...progress.records, record].slice(-MAX_RECORDS),
  total: progress.total + 1,
});

/** The record of a failed attempt: where and how it failed (never a body or a header value). */
function failedRecord(failure: ScheduledFailure, now: number): AttemptRecord {
  const status = statusOf(failure);
  return { at: now, ok: false, path: failure.path, code: failure.code, ...(status !== undefined ? { status } : {}) };
}

/**
 * The next attempt after this failure, with the progress that leads to it; null when the run ends now
 * (not a failure the schedule retries, the last attempt, or past the window). A `req` answered 429 or 503
 * waits for what the answer asks (Retry-After, X-RateLimit-Reset: at most 24 h), else a backoff from the
 * schedule's next delay; that wait does not use up an attempt.
 */
export function nextAttempt(
  schedule: StoredRetrySchedule,
  progress: ScheduleProgress,
  failure: ScheduledFailure,
  now: number,
  random: () => number,
): { at: number; progress: ScheduleProgress } | null {
  const held = heldUntilOf(failure);
  if (held !== undefined) {
    // Held for an open circuit (nothing sent): the run waits for the probe, no attempt used, within the window.
    if (held > windowEnd(schedule, progress)) return null;
    const origin = typeof failure.detail?.origin === 'string' ? failure.detail.origin : failure.origin;
    return { at: held, progress: { ...heldForCircuit(progress, held, now, failure.path), ...(origin !== undefined ? { origin } : {}) } };
  }
  if (!isRetried(schedule, failure)) return null;
  const record = failedRecord(failure, now);
  const status = statusOf(failure);
  let next: { at: number; progress: ScheduleProgress };
  if (failure.act === 'req' && status !== undefined && BACK_PRESSURE_STATUSES.has(status)) {
    const asked = requestedWait(status, failure.headers ?? {}, now);
    const wait = asked ?? { ms: backoffMs(progress.waits, delayBefore(schedule, progress.failed + 2), random), header: 'backoff' };
    const waited = { ...record, waited_ms: wait.ms, wait_from: wait.header };
    next = { at: now + wait.ms, progress: { ...progress, waits: progress.waits + 1, ...withRecord(progress, waited) } };
  } else {
    const failed = progress.failed + 1;
    if (failed >= schedule.attempts) return null;
    next = { at: now + jittered(delayBefore(schedule, failed + 1), random), progress: { ...progress, failed, waits: 0, ...withRecord(progress, record) } };
  }
  if (next.at > windowEnd(schedule, progress)) return null;
  const { origin: _before, ...rest } = next.progress;
  return { at: next.at, progress: failure.origin !== undefined ? { ...rest, origin: failure.origin } : rest };
}

const isHold = (record: AttemptRecord | undefined): boolean => record?.waited === 'circuit';

/** When a req held for its origin's open circuit waits until (src/consume/circuit-gate.ts); undefined for any other failure. */
function heldUntilOf(failure: ScheduledFailure): number | undefined {
  const until = failure.detail?.held_until;
  return failure.detail?.reason === 'circuit_open' && typeof until === 'number' ? until : undefined;
}

/**
 * The progress with the run held until `until` for its destination's circuit (extension): listed among
 * the attempts as a hold (one entry per hold, lengthened while it lasts), no attempt used.
 */
export function heldForCircuit(progress: ScheduleProgress, until: number, now: number, heldAt?: string): ScheduleProgress {
  const last = progress.records.at(-1);
  const held = isHold(last) ? progress.records.slice(0, -1) : progress.records;
  const at = isHold(last) && last ? last.at : now;
  const path = heldAt ?? last?.path;
  const record: AttemptRecord = { at, ok: false, ...(path !== undefined ? { path } : {}), waited: 'circuit', waited_ms: until - at };
  return { ...progress, records: [...held, record].slice(-MAX_RECORDS) };
}

/** The progress with the run's last attempt recorded: it succeeded, or failed with this failure. */
export function lastAttempt(progress: ScheduleProgress, failure: ScheduledFailure | undefined, now: number): ScheduleProgress {
  return { ...progress, ...withRecord(progress, failure ? failedRecord(failure, now) : { at: now, ok: true }) };
}
