/**
 * Counters as the owner reads them: a ticket's or project's point (consumptions, failures by code,
 * percentiles), a forwarding point (calls, status classes, bytes, percentiles). Pure.
 */
import { COUNTER, type Counters } from './counters';
import { percentilesOf, type Percentiles } from './latency-sketch';

export type TicketPointValues = {
  consumptions: number;
  succeeded: number;
  failed: number;
  failures_by_code: Record<string, number>;
  dry_runs: number;
  duplicates: number;
  retries: number;
  dead_letters: number;
  flood_refused: number;
  latency_ms: Percentiles | null;
  req_latency_ms: Percentiles | null;
};

export type ForwardPointValues = {
  calls: number;
  status: Record<'2xx' | '3xx' | '4xx' | '5xx' | 'error', number>;
  bytes: number;
  latency_ms: Percentiles | null;
};

const count = (counters: Counters, name: string) => counters[name] ?? 0;

/** The buckets of one latency sketch among the counters (name prefix stripped). */
function sketch(counters: Counters, prefix: string): Map<string, number> {
  const buckets = new Map<string, number>();
  for (const [name, n] of Object.entries(counters)) if (name.startsWith(prefix)) buckets.set(name.slice(prefix.length), n);
  return buckets;
}

export function ticketValues(counters: Counters): TicketPointValues {
  const failures: Record<string, number> = {};
  for (const [name, n] of Object.entries(counters)) {
    if (name.startsWith(COUNTER.failureCode) && n > 0) failures[name.slice(COUNTER.failureCode.length)] = n;
  }
  const succeeded = count(counters, COUNTER.succeeded);
  const failed = count(counters, COUNTER.failed);
  return {
    consumptions: succeeded + failed,
    succeeded,
    failed,
    failures_by_code: failures,
    dry_runs: count(counters, COUNTER.dryRuns),
    duplicates: count(counters, COUNTER.duplicates),
    retries: count(counters, COUNTER.retries),
    dead_letters: count(counters, COUNTER.deadLetters),
    flood_refused: count(counters, COUNTER.floodRefused),
    latency_ms: percentilesOf(sketch(counters, COUNTER.consumptionLatency)),
    req_latency_ms: percentilesOf(sketch(counters, COUNTER.reqLatency)),
  };
}

export function forwardValues(counters: Counters): ForwardPointValues {
  const status = (cls: string) => count(counters, COUNTER.status + cls);
  return {
    calls: count(counters, COUNTER.calls),
    status: { '2xx': status('2xx'), '3xx': status('3xx'), '4xx': status('4xx'), '5xx': status('5xx'), error: status('error') },
    bytes: count(counters, COUNTER.bytes),
    latency_ms: percentilesOf(sketch(counters, COUNTER.forwardLatency)),
  };
}
