/** The grains a point is kept at, and the buckets an owner may ask for. Pure. */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export type Grain = 'm' | 'h' | 'd';
export const GRAIN_MS: Record<Grain, number> = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };
export const GRAINS: readonly Grain[] = ['m', 'h', 'd'];

/** Minute points are kept this long: enough for a 24-hour chart by the minute. */
export const MINUTE_POINTS_KEPT_MS = 2 * DAY_MS;

/** The buckets a query may ask for, by name. */
export const BUCKETS = { '1m': MINUTE_MS, '5m': 5 * MINUTE_MS, '15m': 15 * MINUTE_MS, '1h': HOUR_MS, '6h': 6 * HOUR_MS, '1d': DAY_MS } as const;
export type BucketName = keyof typeof BUCKETS;

/** The most points one answer holds. */
export const MAX_POINTS = 1_500;
/** A query's default span when it gives no `from`. */
export const DEFAULT_SPAN_MS = DAY_MS;

export const startOf = (at: number, grain: Grain) => Math.floor(at / GRAIN_MS[grain]) * GRAIN_MS[grain];

/** The coarsest stored grain a bucket is made of (its size a multiple of the grain's). */
export function grainFor(bucketMs: number): Grain {
  if (bucketMs % DAY_MS === 0) return 'd';
  if (bucketMs % HOUR_MS === 0) return 'h';
  return 'm';
}

/** The smallest bucket with which a span holds at most `MAX_POINTS` … well under: at most 1,440 points. */
export function defaultBucket(spanMs: number): number {
  for (const ms of Object.values(BUCKETS)) if (spanMs / ms <= 1_440) return ms;
  return DAY_MS;
}
