import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../wire/errors';
import { runWithRetry } from './retry';
import type { ActionResult } from './types';

/** A clock whose sleep moves time forward at once, recording each wait. */
function fakeClock(start = 0) {
  const clock = { time: start, waits: [] as number[], now: () => clock.time, sleep: async (ms: number) => void (clock.waits.push(ms), (clock.time += ms)) };
  return clock;
}

const failing = (code: ErrorCode = 'REQUEST_FAILED'): ActionResult => ({ ok: false, failure: { code, message: 'no' } });

/** An attempt that fails `failures` times, then succeeds. */
function flaky(failures: number, code?: ErrorCode) {
  let calls = 0;
  const attempt = async (): Promise<ActionResult> => (++calls <= failures ? failing(code) : { ok: true, answer: calls });
  return { attempt, calls: () => calls };
}

describe('retry', () => {
  it('tries up to 3 more times, 1, 2 and 4 seconds apart', async () => {
    const clock = fakeClock();
    const { attempt, calls } = flaky(10);
    const { result, attempts } = await runWithRetry(attempt, { enabled: true, deadline: 25_000 }, clock);
    expect(result.ok).toBe(false);
    expect([attempts, calls()]).toEqual([4, 4]);
    expect(clock.waits).toEqual([1_000, 2_000, 4_000]);
  });

  it('stops at the first success', async () => {
    const clock = fakeClock();
    const { attempt } = flaky(2);
    const { result, attempts } = await runWithRetry(attempt, { enabled: true, deadline: 25_000 }, clock);
    expect(result).toEqual({ ok: true, answer: 3 });
    expect(attempts).toBe(3);
    expect(clock.waits).toEqual([1_000, 2_000]);
  });

  it('without retry an action is tried once', async () => {
    const clock = fakeClock();
    const { attempt, calls } = flaky(1);
    const { attempts } = await runWithRetry(attempt, { enabled: false, deadline: 25_000 }, clock);
    expect([attempts, calls()]).toEqual([1, 1]);
    expect(clock.waits).toEqual([]);
  });

  it('a try that would start after the time budget is not made', async () => {
    const clock = fakeClock(20_000);
    const { attempt, calls } = flaky(10);
    // 20 s + 1 s and + 2 s start before 25 s; the try after the 4-second wait would start at 27 s.
    const { attempts } = await runWithRetry(attempt, { enabled: true, deadline: 25_000 }, clock);
    expect([attempts, calls()]).toEqual([3, 3]);
    expect(clock.waits).toEqual([1_000, 2_000]);
  });

  it('a failure a later try cannot change is not retried', async () => {
    for (const code of ['PATH_NOT_FOUND', 'PLACEHOLDER_MISSING', 'AUTH_REQUIRED', 'ACTION_FORBIDDEN', 'INTERNAL_ERROR', 'TIMEOUT'] as const) {
      const clock = fakeClock();
      const { attempt, calls } = flaky(10, code);
      await runWithRetry(attempt, { enabled: true, deadline: 25_000 }, clock);
      expect([code, calls()]).toEqual([code, 1]);
    }
  });
});
