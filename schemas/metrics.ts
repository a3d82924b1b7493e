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
