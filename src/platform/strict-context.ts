/**
 * Strict mode's per-invocation state: the budget of the invocation the running code belongs to, kept
 * in an AsyncLocalStorage so that every await, timer and waitUntil of that invocation finds it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { InvocationBudget, StrictPlan } from './strict-limits';

/** The Worker var that turns strict mode on: "1" counts against the Paid plan, "free" the Free plan. */
export interface StrictVars {
  SVC_STRICT_LIMITS?: string;
}

export function strictPlan(env: StrictVars): StrictPlan | null {
  const value = env.SVC_STRICT_LIMITS;
  return value === '1' || value === 'paid' ? 'paid' : value === 'free' ? 'free' : null;
}

const invocations = new AsyncLocalStorage<InvocationBudget>();

/** The budget of the invocation running now; undefined outside one (a test's own code, a constructor). */
export const currentBudget = (): InvocationBudget | undefined => invocations.getStore();

/**
 * Runs `run` as the invocation `budget` counts; its wall time is checked again when it ends. A
 * synchronous `run` stays synchronous.
 */
export function enter<T>(budget: InvocationBudget, run: () => T): T {
  return invocations.run(budget, () => {
    const result = run();
    if (result instanceof Promise) return result.finally(() => budget.checkWallTime()) as T;
    budget.checkWallTime();
    return result;
  });
}
