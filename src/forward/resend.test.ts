import { describe, expect, it } from 'vitest';
import type { ForwardRecord } from './record';
import { backoffBaseMs, MAX_LISTED_ATTEMPTS, waitingAgain, type ResendPolicy } from './resend';

const CREATED = 1_000_000;
const running: ForwardRecord = {
  id: 'a:b',
  method: 'POST',
  url: 'https://api.example/x',
  queue_name: 'q',
  status: 'running',
  created: CREATED,
  updated: CREATED + 10,
  executed: CREATED + 10,
};
const policy: ResendPolicy = { withinSeconds: 60, baseMs: 1000, random: () => 1 };

describe('a request answered with back-pressure', () => {
  it('goes back to pending with its send listed and the next send set to now plus the asked wait', () => {
    const now = CREATED + 50;
    const waiting = waitingAgain(running, { statusCode: 429, askedWaitMs: 2000 }, policy, now);
    expect(waiting).toMatchObject({ status: 'pending', updated: now, next_attempt_at: now + 2000 });
    expect(waiting?.attempts).toEqual([{ at: CREATED + 10, status_code: 429, waited_ms: 2000 }]);
    expect(waiting).not.toHaveProperty('executed');
  });

  it('falls back to the backoff, doubled per earlier wait, when the answer asks for nothing', () => {
    const earlier = { ...running, attempts: [{ at: CREATED, status_code: 503, waited_ms: 1000 }] };
    const waiting = waitingAgain(earlier, { statusCode: 503 }, policy, CREATED + 20);
    expect(waiting?.attempts?.map((attempt) => attempt.waited_ms)).toEqual([1000, 2000]);
  });

  it(`lists only the latest ${MAX_LISTED_ATTEMPTS} attempts, so a day of short waits still fits its row`, () => {
    const many = Array.from({ length: MAX_LISTED_ATTEMPTS }, (_, n) => ({ at: CREATED + n, status_code: 429, waited_ms: 1 }));
    const waiting = waitingAgain({ ...running, attempts: many }, { statusCode: 503, askedWaitMs: 5 }, policy, CREATED + 100);
    expect(waiting?.attempts).toHaveLength(MAX_LISTED_ATTEMPTS);
    expect(waiting?.attempts?.[0].at).toBe(CREATED + 1);
    expect(waiting?.attempts?.at(-1)).toEqual({ at: CREATED + 10, status_code: 503, waited_ms: 5 });
  });

  it('settles when the wait would end after `within`', () => {
    expect(waitingAgain(running, { statusCode: 429, askedWaitMs: 60_000 }, policy, CREATED + 1)).toBeUndefined();
    expect(waitingAgain(running, { statusCode: 429, askedWaitMs: 59_000 }, policy, CREATED + 1000)).toBeDefined();
  });

  it('settles when the request did not ask for retry', () => {
    expect(waitingAgain(running, { statusCode: 429, askedWaitMs: 1000 }, { ...policy, withinSeconds: undefined }, CREATED)).toBeUndefined();
  });

  it('is never resent on another status or without an answer (the destination may have acted)', () => {
    for (const statusCode of [200, 408, 500, 502, 504, undefined]) {
      expect(waitingAgain(running, { ...(statusCode ? { statusCode } : {}), askedWaitMs: 1000 }, policy, CREATED), String(statusCode)).toBeUndefined();
    }
  });
});

describe('the backoff base', () => {
  it('is 1 s, shortened but never lengthened by FORWARD_BACKOFF_MS', () => {
    expect(backoffBaseMs({})).toBe(1000);
    expect(backoffBaseMs({ FORWARD_BACKOFF_MS: '200' })).toBe(200);
    expect(backoffBaseMs({ FORWARD_BACKOFF_MS: '50000' })).toBe(1000);
    expect(backoffBaseMs({ FORWARD_BACKOFF_MS: 'x' })).toBe(1000);
  });
});
