/**
 * Strict mode's per-invocation state: the budget of the invocation the running code belongs to, kept
 * in an AsyncLocalStorage so that every await, timer and waitUntil of that invocation finds it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Carried, InvocationBudget, StrictPlan } from './strict-limits';

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

/**
 * How a call carries its chain across to the invocation it starts (strict mode only): a Durable Object RPC
 * call goes through this method, which strictObject adds to the object's prototype; a stub `fetch` (a reserved
 * name over RPC) and a fetch to the Worker's own host carry it in this header, which the entry removes.
 */
export const STRICT_CALL = 'strictCall';
export const DEPTH_HEADER = 'x-svc-strict-chain';

export const encodeCarried = (carried: Carried): string => encodeURIComponent(JSON.stringify(carried));

/** The chain a request carries in DEPTH_HEADER, and the request without it; none when it has no such header. */
export function takeCarried(request: Request): { carried: Carried; request: Request } | null {
  const header = request.headers.get(DEPTH_HEADER);
  if (header === null) return null;
  const parsed = JSON.parse(decodeURIComponent(header)) as Carried;
  const without = new Request(request);
  without.headers.delete(DEPTH_HEADER);
  return { carried: { chain: parsed.chain.map(String), host: parsed.host }, request: without };
}

/** `request` (or what `input` and `init` make) carrying `carried` in DEPTH_HEADER. */
export function withCarried(carried: Carried, input: RequestInfo | URL, init?: RequestInit): Request {
  const request = new Request(input, init);
  request.headers.set(DEPTH_HEADER, encodeCarried(carried));
  return request;
}
