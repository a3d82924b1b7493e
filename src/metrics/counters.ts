/**
 * A metric point is a flat map of named counters, so that every merge (the minutes of an hour, the tickets
 * of a project, a delta pushed twice in parts) is a sum per name, in SQL as in memory. Latency sketches are
 * counters too: one per bucket (latency-sketch.ts). Pure.
 */
import { bucketOf } from './latency-sketch';

export type Counters = Record<string, number>;

/** The counter names; a `<prefix><bucket>` name counts one latency bucket, `code:<CODE>` one failure code. */
export const COUNTER = {
  succeeded: 'ok',
  failed: 'fail',
  dryRuns: 'chk',
  duplicates: 'dup',
  retries: 'rty',
  deadLetters: 'dl',
  floodRefused: 'fl',
  failureCode: 'code:',
  consumptionLatency: 'lc.',
  reqLatency: 'lr.',
  calls: 'calls',
  status: 's:',
  bytes: 'bytes',
  forwardLatency: 'lf.',
} as const;

export function add(into: Counters, name: string, n = 1): void {
  into[name] = (into[name] ?? 0) + n;
}

export function addAll(into: Counters, more: Counters): void {
  for (const [name, n] of Object.entries(more)) add(into, name, n);
}

export function addLatency(into: Counters, prefix: string, ms: number): void {
  add(into, prefix + bucketOf(ms));
}

/** What one logged consumption or dry run adds. */
export type ConsumptionFacts = {
  check: boolean;
  duplicate: boolean;
  failed: boolean;
  code: string | null;
  ms: number;
};

export function consumptionCounters(facts: ConsumptionFacts): Counters {
  const counters: Counters = {};
  if (facts.check) add(counters, COUNTER.dryRuns);
  else if (facts.duplicate) add(counters, COUNTER.duplicates);
  else {
    add(counters, facts.failed ? COUNTER.failed : COUNTER.succeeded);
    if (facts.failed) add(counters, COUNTER.failureCode + (facts.code ?? 'UNKNOWN'));
    addLatency(counters, COUNTER.consumptionLatency, facts.ms);
  }
  return counters;
}

/** One `req` send that got an answer, after `ms`. */
export function reqLatencyCounters(ms: number): Counters {
  const counters: Counters = {};
  addLatency(counters, COUNTER.reqLatency, ms);
  return counters;
}

/** A run that went on after its answer (counted a success then) failed later: it moves to the failures. */
export function laterFailureCounters(code: string | null): Counters {
  return { [COUNTER.succeeded]: -1, [COUNTER.failed]: 1, [COUNTER.failureCode + (code ?? 'UNKNOWN')]: 1 };
}

/** Status class of a forwarded call: 2xx … 5xx, or `error` when no answer came. */
export function statusClass(status: number | null): string {
  if (status === null || status < 100 || status > 599) return 'error';
  return `${Math.floor(status / 100)}xx`;
}

/** What one forwarded call adds to its key's and its destination's counters. */
export function forwardCounters(status: number | null, bytes: number, ms: number): Counters {
  const counters: Counters = { [COUNTER.calls]: 1, [COUNTER.status + statusClass(status)]: 1 };
  if (bytes > 0) counters[COUNTER.bytes] = bytes;
  addLatency(counters, COUNTER.forwardLatency, ms);
  return counters;
}

/** The counters with a count: zeros left out (a merge of +1 and -1 leaves nothing to keep). */
export function nonZero(counters: Counters): Counters {
  return Object.fromEntries(Object.entries(counters).filter(([, n]) => n !== 0));
}
