/**
 * Latency as counts in fixed logarithmic buckets (a DDSketch with a fixed mapping): a value v > 0 ms
 * falls in bucket ceil(log_γ v), whose every value is within RELATIVE_ERROR of the bucket's estimate.
 * Sketches merge exactly by adding counts per bucket, so minutes, hours, days and a project's tickets
 * add up to the same percentiles as one sketch of all the values. Pure.
 */

/** The most a percentile is off, relative to the value it estimates. */
export const RELATIVE_ERROR = 0.02;
const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);
/** Values below this (ms) count in the zero bucket: the runtime's clock moves by whole milliseconds. */
const ZERO_BELOW_MS = 0.5;
const ZERO = 'z';

/** The bucket a latency in ms counts in. */
export function bucketOf(ms: number): string {
  if (!(ms >= ZERO_BELOW_MS)) return ZERO;
  return String(Math.ceil(Math.log(ms) / LOG_GAMMA));
}

/** The value a bucket stands for: within RELATIVE_ERROR of each value it holds. */
export function valueOf(bucket: string): number {
  if (bucket === ZERO) return 0;
  return (2 * GAMMA ** Number(bucket)) / (GAMMA + 1);
}

export type Percentiles = { p50: number; p95: number; p99: number };

/** The percentiles of a sketch's buckets (name → count), or null when it holds no value. */
export function percentilesOf(buckets: Map<string, number>): Percentiles | null {
  const sorted = [...buckets].filter(([, n]) => n > 0).sort(([a], [b]) => order(a) - order(b));
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return null;
  const at = (q: number) => {
    // The rank of the q-quantile (nearest rank), then the bucket holding it.
    const rank = Math.max(1, Math.ceil(q * total));
    let seen = 0;
    for (const [bucket, n] of sorted) {
      seen += n;
      if (seen >= rank) return round(valueOf(bucket));
    }
    return round(valueOf(sorted[sorted.length - 1][0]));
  };
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

const order = (bucket: string) => (bucket === ZERO ? Number.NEGATIVE_INFINITY : Number(bucket));
const round = (ms: number) => Math.round(ms * 100) / 100;
