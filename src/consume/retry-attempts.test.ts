import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, normalizeRetrySchedule } from '../../schemas/retry-schedule';
import {
  delayBefore,
  heldForCircuit,
  isRetried,
  jittered,
  lastAttempt,
  MAX_RECORDS,
  nextAttempt,
  startProgress,
  windowEnd,
  type ScheduledFailure,
} from './retry-attempts';

const NOW = Date.UTC(2026, 10, 29, 9);
const S = 1_000;
const H = 3_600_000;
const middle = () => 0.5;
const status = (code: number, act = 'req'): ScheduledFailure => ({ act, path: 'actions[1]', code: 'REQUEST_FAILED', detail: { status: code, body: 'x' } });
const reason = (why: string): ScheduledFailure => ({ act: 'req', path: 'actions[1]', code: 'REQUEST_FAILED', detail: { reason: why } });

describe('which failures the schedule retries', () => {
  it('by default network errors, timeouts, 408, 429 and 5xx; never another 4xx, a refusal or a reference that does not resolve', () => {
    const retried = (failure: ScheduledFailure) => isRetried(DEFAULT_RETRY_SCHEDULE, failure);
    for (const code of [408, 429, 500, 502, 503, 504, 599]) expect(retried(status(code))).toBe(true);
    for (const code of [300, 400, 401, 403, 404, 409, 410, 422]) expect(retried(status(code))).toBe(false);
    expect(retried(reason('unreachable'))).toBe(true);
    expect(retried(reason('timeout'))).toBe(true);
    expect(retried({ act: 'req', path: 'actions[1]', code: 'TIMEOUT' })).toBe(true);
    for (const why of ['invalid_url', 'too_large', 'invalid_header', 'secret_missing']) expect(retried(reason(why))).toBe(false);
    for (const code of ['PATH_NOT_FOUND', 'ACTION_FORBIDDEN', 'INTERNAL_ERROR', 'PLACEHOLDER_MISSING']) {
      expect(retried({ act: 'req', path: 'actions[1]', code })).toBe(false);
    }
  });

  it('follows on: listed statuses only, network and timeout switched off', () => {
    const schedule = normalizeRetrySchedule({ on: { statuses: [409], network: false, timeout: false } }, 'retry_schedule');
    expect(isRetried(schedule, status(409))).toBe(true);
    expect(isRetried(schedule, status(500))).toBe(false);
    expect(isRetried(schedule, reason('unreachable'))).toBe(false);
    expect(isRetried(schedule, reason('timeout'))).toBe(false);
  });
});

describe('when the next attempt is', () => {
  it('after each delay in turn, the last repeating', () => {
    const schedule = normalizeRetrySchedule({ delays: ['5s', '1m'], attempts: 5 }, 'retry_schedule');
    expect([2, 3, 4, 5].map((attempt) => delayBefore(schedule, attempt))).toEqual([5 * S, 60 * S, 60 * S, 60 * S]);
  });

  it('a counted failure waits the jittered delay and counts; the last attempt ends the run', () => {
    const schedule = normalizeRetrySchedule({ delays: ['10s'], attempts: 3 }, 'retry_schedule');
    const first = nextAttempt(schedule, startProgress(NOW), status(500), NOW, middle);
    expect(first).toEqual({
      at: NOW + 10 * S,
      progress: { started_at: NOW, failed: 1, waits: 0, total: 1, records: [{ at: NOW, ok: false, path: 'actions[1]', code: 'REQUEST_FAILED', status: 500 }] },
    });
    const second = nextAttempt(schedule, first!.progress, status(500), NOW + 10 * S, middle);
    expect(second?.progress.failed).toBe(2);
    expect(nextAttempt(schedule, second!.progress, status(500), NOW + 20 * S, middle)).toBeNull();
  });

  it('a failure it does not retry ends the run', () => {
    expect(nextAttempt(DEFAULT_RETRY_SCHEDULE, startProgress(NOW), status(400), NOW, middle)).toBeNull();
  });

  it('a req answered 429 waits its Retry-After without using up an attempt, and the record says so', () => {
    const schedule = normalizeRetrySchedule({ delays: ['10s'], attempts: 2 }, 'retry_schedule');
    let progress = startProgress(NOW);
    for (let i = 0; i < 5; i++) {
      const next = nextAttempt(schedule, progress, { ...status(429), headers: { 'retry-after': '30' } }, NOW, middle);
      expect(next?.at).toBe(NOW + 30 * S);
      progress = next!.progress;
    }
    expect(progress).toMatchObject({ failed: 0, waits: 5, total: 5 });
    expect(progress.records[0]).toEqual({
      at: NOW,
      ok: false,
      path: 'actions[1]',
      code: 'REQUEST_FAILED',
      status: 429,
      waited_ms: 30 * S,
      wait_from: 'retry-after',
    });
    // A 503 without a hint backs off from the schedule's next delay; another action's 429 counts as a failure.
    expect(nextAttempt(schedule, startProgress(NOW), status(503), NOW, () => 1)?.progress.records[0]).toMatchObject({
      waited_ms: 10 * S,
      wait_from: 'backoff',
    });
    expect(nextAttempt(schedule, startProgress(NOW), status(429, 'mail'), NOW, middle)?.progress.failed).toBe(1);
  });

  it('a wait is capped at 24 h, and no attempt starts after the window', () => {
    const schedule = normalizeRetrySchedule({ delays: ['1h'], within: '2h', attempts: 10 }, 'retry_schedule');
    const huge = { ...status(429), headers: { 'retry-after': String(3 * 86_400) } };
    expect(nextAttempt(normalizeRetrySchedule({ within: '7d' }, 'r'), startProgress(NOW), huge, NOW, middle)?.at).toBe(NOW + 24 * H);
    expect(nextAttempt(schedule, startProgress(NOW), huge, NOW, middle)).toBeNull();
    expect(nextAttempt(schedule, startProgress(NOW), status(500), NOW + 1.5 * H, middle)).toBeNull();
    expect(nextAttempt(schedule, startProgress(NOW), status(500), NOW + 0.5 * H, middle)?.at).toBe(NOW + 1.5 * H);
  });

  it('keeps the latest records and counts them all; the last attempt is recorded', () => {
    let progress = startProgress(NOW);
    const schedule = normalizeRetrySchedule({ delays: ['1s'], attempts: 50, within: '7d' }, 'retry_schedule');
    for (let i = 0; i < 30; i++) progress = nextAttempt(schedule, progress, status(500), NOW + i * S, middle)!.progress;
    expect(progress.records).toHaveLength(MAX_RECORDS);
    expect(progress.total).toBe(30);
    expect(lastAttempt(progress, undefined, NOW + H).records.at(-1)).toEqual({ at: NOW + H, ok: true });
  });

  it('property: jitter stays within a fifth of the delay, every next attempt is within the window and the attempts never pass the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 24 * H }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.constantFrom(429, 500, 503, 408), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 2, max: 50 }),
        fc.constantFrom('1h', '3d', '7d'),
        (delay, random, statuses, attempts, within) => {
          const once = jittered(delay, () => random);
          expect(once).toBeGreaterThanOrEqual(Math.max(1_000, Math.floor(delay * 0.8)));
          expect(once).toBeLessThanOrEqual(Math.ceil(delay * 1.2));
          const schedule = normalizeRetrySchedule({ attempts, within }, 'retry_schedule');
          let progress = startProgress(NOW);
          let now = NOW;
          for (const code of statuses) {
            const next = nextAttempt(schedule, progress, status(code), now, () => random);
            if (!next) break;
            expect(next.at).toBeGreaterThan(now);
            expect(next.at).toBeLessThanOrEqual(windowEnd(schedule, progress));
            expect(next.progress.failed).toBeLessThan(schedule.attempts);
            ({ progress } = next);
            now = next.at;
          }
        },
      ),
    );
  });
});

describe('a run held for its destination circuit (extension)', () => {
  const ORIGIN = 'https://api.example';

  it("keeps the failed req's origin in the progress, and forgets it when the run stands at another failure", () => {
    const schedule = normalizeRetrySchedule({ delays: ['5s'], attempts: 5 }, 'retry_schedule');
    const first = nextAttempt(schedule, startProgress(NOW), { ...status(500), origin: ORIGIN }, NOW, middle);
    expect(first?.progress.origin).toBe(ORIGIN);
    const second = nextAttempt(schedule, first?.progress ?? startProgress(NOW), { act: 'req', path: 'actions[2]', code: 'TIMEOUT' }, NOW + 5 * S, middle);
    expect(second?.progress).not.toHaveProperty('origin');
  });

  it('lists one hold per wait, lengthened while it lasts, and uses no attempt', () => {
    const schedule = normalizeRetrySchedule({ delays: ['5s'], attempts: 5 }, 'retry_schedule');
    const failed = nextAttempt(schedule, startProgress(NOW), { ...status(500), origin: ORIGIN }, NOW, middle)?.progress ?? startProgress(NOW);
    const held = heldForCircuit(failed, NOW + 60 * S, NOW + 10 * S);
    expect(held.records.at(-1)).toEqual({ at: NOW + 10 * S, ok: false, path: 'actions[1]', waited: 'circuit', waited_ms: 50 * S });
    const longer = heldForCircuit(held, NOW + 180 * S, NOW + 60 * S);
    expect(longer.records).toHaveLength(2);
    expect(longer.records.at(-1)).toEqual({ at: NOW + 10 * S, ok: false, path: 'actions[1]', waited: 'circuit', waited_ms: 170 * S });
    expect({ failed: longer.failed, total: longer.total, waits: longer.waits }).toEqual({ failed: 1, total: 1, waits: 0 });
  });
});
