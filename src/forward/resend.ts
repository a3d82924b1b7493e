/**
 * Waiting out back-pressure (issue 36 item 2, an extension): a queued request sent with `retry` and answered
 * 429 or 503 goes back to pending, to be sent again after the wait the answer asks for (else a backoff),
 * while that wait ends within its `within`. Only 429 and 503 are resent: they say the destination did not
 * act on the request. Any other answer, a timeout or a network error settles as it always did.
 */
import { BACK_PRESSURE_STATUSES, backoffMs } from '../outbound/back-pressure';
import type { Env } from '../env';
import type { ForwardRecord } from './record';

/**
 * The most attempts a record lists (the latest): a day of 1-second waits would otherwise outgrow a row
 * (2 MB). Past it the backoff stays at its cap, which it reaches long before.
 */
export const MAX_LISTED_ATTEMPTS = 20;

/** The backoff's first step (ms) when the answer asks for no wait. */
const BACKOFF_BASE_MS = 1000;

/** The backoff's first step: FORWARD_BACKOFF_MS (test settings only) may shorten it. */
export function backoffBaseMs(env: Pick<Env, 'FORWARD_BACKOFF_MS'>): number {
  const configured = Number(env.FORWARD_BACKOFF_MS);
  return Number.isFinite(configured) && configured > 0 ? Math.min(configured, BACKOFF_BASE_MS) : BACKOFF_BASE_MS;
}

/** What the send's answer tells: the destination's status (when it answered) and the wait it asked for. */
export interface SendAnswer {
  statusCode?: number;
  askedWaitMs?: number;
}

export interface ResendPolicy {
  /** Seconds from the request's creation it may wait until; undefined: it did not ask for retry. */
  withinSeconds: number | undefined;
  baseMs: number;
  random: () => number;
}

/**
 * The running request back to pending, its send listed among its attempts and its next send's time set;
 * undefined when it settles instead (no retry asked, another answer, or the wait would end past `within`).
 */
export function waitingAgain(running: ForwardRecord, answer: SendAnswer, policy: ResendPolicy, now: number): ForwardRecord | undefined {
  const { statusCode } = answer;
  if (policy.withinSeconds === undefined || statusCode === undefined || !BACK_PRESSURE_STATUSES.has(statusCode)) return undefined;
  const attempts = running.attempts ?? [];
  const sends = attempts.filter((attempt) => attempt.waited !== 'circuit').length;
  const wait = answer.askedWaitMs ?? backoffMs(sends, policy.baseMs, policy.random);
  if (now + wait > running.created + policy.withinSeconds * 1000) return undefined;
  const { executed, ...waiting } = running;
  return {
    ...waiting,
    status: 'pending',
    updated: now,
    attempts: [...attempts, { at: executed ?? now, status_code: statusCode, waited_ms: wait }].slice(-MAX_LISTED_ATTEMPTS),
    next_attempt_at: now + wait,
  };
}
