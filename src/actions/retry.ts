import type { ErrorCode } from '../wire/errors';
import { RETRY_DELAYS_MS } from '../limits';
import type { ActionResult } from './types';

export interface RetryClock {
  now(): number;
  /** Waits ms; injected so tests do not wait real seconds. */
  sleep(ms: number): Promise<void>;
}

export interface RetryPlan {
  /** The action asked for retry and may have it (not resp or cond, not inside a Then chain). */
  enabled: boolean;
  /** No try starts at or after this time (ms since the epoch). */
  deadline: number;
  delays?: readonly number[];
}

/**
 * Failures a later try cannot change: a reference that does not resolve, a refused target, a
 * missing module, the budget running out. They are not retried.
 */
const FINAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'PATH_NOT_FOUND',
  'PLACEHOLDER_MISSING',
  'AUTH_REQUIRED',
  'ACTION_FORBIDDEN',
  'INTERNAL_ERROR',
  'TIMEOUT',
]);

const isRetryable = (code: ErrorCode): boolean => !FINAL_CODES.has(code);

/**
 * Runs `attempt`, and on a retryable failure tries again up to 3 more times, 1, 2 and 4 seconds
 * apart (spec 2.4), as long as the next try would start before the deadline.
 */
export async function runWithRetry(
  attempt: () => Promise<ActionResult>,
  plan: RetryPlan,
  clock: RetryClock,
): Promise<{ result: ActionResult; attempts: number }> {
  const delays = plan.delays ?? RETRY_DELAYS_MS;
  let attempts = 0;
  for (;;) {
    const result = await attempt();
    attempts += 1;
    if (result.ok || !plan.enabled || !isRetryable(result.failure.code)) return { result, attempts };
    const delay = delays[attempts - 1];
    if (delay === undefined || clock.now() + delay >= plan.deadline) return { result, attempts };
    await clock.sleep(delay);
  }
}
