import { CONSUMPTION_BUDGET_MS, DEADLINE_GRACE_MS } from '../limits';
import type { ActionResult } from './types';

/** When a run that starts at `start` runs out of time (25 s per consumption, spec 8). */
export const deadlineFrom = (start: number): number => start + CONSUMPTION_BUDGET_MS;

const timeoutFailure = (message: string): ActionResult => ({ ok: false, failure: { code: 'TIMEOUT', message } });

/**
 * Waits for an action at most until the deadline plus a short grace, so a module that honours
 * services.deadline reports its own failure first (req: REQUEST_FAILED with reason 'timeout').
 * An action cut off this way fails with TIMEOUT; what it already did stays done (no rollback).
 */
export async function withinDeadline(running: Promise<ActionResult>, deadline: number, now: number): Promise<ActionResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cutOff = new Promise<ActionResult>((resolve) => {
    timer = setTimeout(
      () => resolve(timeoutFailure('The action did not finish within the 25-second budget of the consumption.')),
      Math.max(0, deadline - now) + DEADLINE_GRACE_MS,
    );
  });
  try {
    return await Promise.race([running, cutOff]);
  } finally {
    clearTimeout(timer);
  }
}
