/** The owner's metrics answers, read from D1's metric_points. */
import { addAll, type Counters } from './counters';
import { bucketStarts, type MetricRange } from './metric-range';
import { forwardValues, ticketValues, type ForwardPointValues, type TicketPointValues } from './metric-points';
import { readBuckets, readScopesBuckets } from './metric-store';

/** Series one forwarding answer holds at most. */
export const FORWARD_SERIES = 20;

const totalOf = (buckets: Map<number, Counters>) => {
  const total: Counters = {};
  for (const counters of buckets.values()) addAll(total, counters);
  return total;
};

export type MetricsAnswer = {
  from: number;
  to: number;
  bucket_ms: number;
  points: (TicketPointValues & { start: number })[];
  totals: TicketPointValues;
};

/** A ticket's (`ticket:<id>`) or the project's (`project`) metrics. */
export async function readMetrics(db: D1Database, serviceId: string, scope: string, range: MetricRange): Promise<MetricsAnswer> {
  const buckets = await readBuckets(db, serviceId, scope, range.grain, range);
  return {
    from: range.from,
    to: range.to,
    bucket_ms: range.bucketMs,
    points: bucketStarts(range).map((start) => ({ start, ...ticketValues(buckets.get(start) ?? {}) })),
    totals: ticketValues(totalOf(buckets)),
  };
}

export type ForwardMetricsAnswer = {
  from: number;
  to: number;
  bucket_ms: number;
  by: 'key' | 'destination';
  series: { name: string; points: (ForwardPointValues & { start: number })[]; totals: ForwardPointValues }[];
};

/** Forwarding's metrics per Secret Key or per destination origin. */
export async function readForwardMetrics(db: D1Database, serviceId: string, by: 'key' | 'destination', range: MetricRange): Promise<ForwardMetricsAnswer> {
  const prefix = by === 'key' ? 'key:' : 'dest:';
  const scopes = await readScopesBuckets(db, serviceId, prefix, range.grain, range, FORWARD_SERIES);
  return {
    from: range.from,
    to: range.to,
    bucket_ms: range.bucketMs,
    by,
    series: [...scopes].map(([scope, buckets]) => ({
      name: scope.slice(prefix.length),
      points: bucketStarts(range).map((start) => ({ start, ...forwardValues(buckets.get(start) ?? {}) })),
      totals: forwardValues(totalOf(buckets)),
    })),
  };
}
