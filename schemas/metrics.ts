/**
 * Metrics over time (issue 37 item 1, an extension): the owner's query (a range and a bucket) of a
 * ticket's, a project's or forwarding's metrics.
 */
import * as z from 'zod';
import { timeParameter } from './forward-owner';
import { strictObject } from './strict';

/** The buckets a query may ask for (src/metrics/grains.ts keeps their sizes). */
export const METRIC_BUCKETS = ['1m', '5m', '15m', '1h', '6h', '1d'] as const;

const bucketParameter = z.enum(METRIC_BUCKETS, { error: `must be one of ${METRIC_BUCKETS.join(', ')} (a minute is the finest)` });

const rangeShape = {
  from: timeParameter.optional(),
  to: timeParameter.optional(),
  bucket: bucketParameter.optional(),
};

const toAfterFrom = (query: { from?: number; to?: number }, ctx: z.RefinementCtx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
};

export const metricsQuerySchema = strictObject(rangeShape, {}).superRefine(toAfterFrom);

export const FORWARD_METRICS_BY = ['key', 'destination'] as const;
export const forwardMetricsQuerySchema = strictObject(
  { ...rangeShape, by: z.enum(FORWARD_METRICS_BY, { error: `must be one of ${FORWARD_METRICS_BY.join(', ')}` }).optional() },
  {},
).superRefine(toAfterFrom);

/** The ranges the dashboard, `svc stats` and the MCP tool offer: the span and the bucket each reads. */
export const METRIC_RANGES = {
  '1h': { spanMs: 3_600_000, bucket: '1m' },
  '24h': { spanMs: 86_400_000, bucket: '1h' },
  '7d': { spanMs: 7 * 86_400_000, bucket: '6h' },
  '30d': { spanMs: 30 * 86_400_000, bucket: '1d' },
} as const satisfies Record<string, { spanMs: number; bucket: (typeof METRIC_BUCKETS)[number] }>;
export type MetricRangeName = keyof typeof METRIC_RANGES;

/** The query of a named range ending at `now`. */
export const rangeQuery = (range: MetricRangeName, now: number) => ({
  from: String(now - METRIC_RANGES[range].spanMs),
  to: String(now),
  bucket: METRIC_RANGES[range].bucket,
});
