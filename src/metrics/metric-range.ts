/** The range and bucket a metrics query asks for, or the field it gets wrong. Pure. */
import { BUCKETS, DEFAULT_SPAN_MS, DAY_MS, MAX_POINTS, MINUTE_POINTS_KEPT_MS, defaultBucket, grainFor, type BucketName, type Grain } from './grains';

export type MetricRange = { from: number; to: number; bucketMs: number; grain: Grain };
export type RangeQuery = { from?: number; to?: number; bucket?: BucketName };

export function metricRange(query: RangeQuery, now: number, retentionDays: number): MetricRange | { field: string; message: string } {
  const to = query.to ?? now;
  const from = query.from ?? to - DEFAULT_SPAN_MS;
  if (from > to) return { field: 'to', message: 'is before "from"' };
  // Points are kept for the plan's log retention, a day's points included.
  if (from < now - (retentionDays + 1) * DAY_MS)
    return { field: 'from', message: `is before what is kept: points are kept ${retentionDays} days on this plan` };
  if (to > now + DAY_MS) return { field: 'to', message: 'is more than a day ahead' };
  const bucketMs = query.bucket ? BUCKETS[query.bucket] : defaultBucket(to - from);
  const grain = grainFor(bucketMs);
  if (grain === 'm' && from < now - MINUTE_POINTS_KEPT_MS)
    return { field: 'bucket', message: 'is finer than an hour, and minute points are kept 2 days: ask 1h or coarser for an older range' };
  const points = Math.floor(to / bucketMs) - Math.floor(from / bucketMs) + 1;
  if (points > MAX_POINTS) return { field: 'bucket', message: `gives ${points} points over the range; the most is ${MAX_POINTS}: choose a coarser bucket` };
  return { from: Math.floor(from / bucketMs) * bucketMs, to, bucketMs, grain };
}

/** The bucket starts of a range, oldest first. */
export function bucketStarts(range: MetricRange): number[] {
  const starts: number[] = [];
  for (let start = range.from; start <= range.to; start += range.bucketMs) starts.push(start);
  return starts;
}
