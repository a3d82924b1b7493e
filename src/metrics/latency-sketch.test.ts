import { describe, expect, it } from 'vitest';
import { bucketOf, percentilesOf, RELATIVE_ERROR, valueOf } from './latency-sketch';

const sketchOf = (values: number[]) => {
  const buckets = new Map<string, number>();
  for (const v of values) buckets.set(bucketOf(v), (buckets.get(bucketOf(v)) ?? 0) + 1);
  return buckets;
};

const merged = (a: Map<string, number>, b: Map<string, number>) => {
  const out = new Map(a);
  for (const [k, n] of b) out.set(k, (out.get(k) ?? 0) + n);
  return out;
};

describe('latency sketch', () => {
  it('estimates every value within the relative error', () => {
    for (const v of [1, 2, 7, 13.5, 99, 250, 1_000, 12_345, 600_000]) {
      expect(Math.abs(valueOf(bucketOf(v)) - v) / v).toBeLessThanOrEqual(RELATIVE_ERROR + 1e-9);
    }
  });

  it('counts values under half a millisecond as zero', () => {
    expect(bucketOf(0)).toBe('z');
    expect(bucketOf(0.2)).toBe('z');
    expect(valueOf('z')).toBe(0);
  });

  it('gives the percentiles of the values within the relative error', () => {
    const values = Array.from({ length: 1_000 }, (_, i) => i + 1);
    const p = percentilesOf(sketchOf(values));
    expect(p).not.toBeNull();
    expect(Math.abs((p?.p50 ?? 0) - 500) / 500).toBeLessThanOrEqual(RELATIVE_ERROR + 0.001);
    expect(Math.abs((p?.p95 ?? 0) - 950) / 950).toBeLessThanOrEqual(RELATIVE_ERROR + 0.001);
    expect(Math.abs((p?.p99 ?? 0) - 990) / 990).toBeLessThanOrEqual(RELATIVE_ERROR + 0.001);
  });

  it('merges exactly: two halves merged give the percentiles of the whole', () => {
    const a = Array.from({ length: 300 }, (_, i) => 5 + (i % 17) * 3);
    const b = Array.from({ length: 700 }, (_, i) => 40 + (i % 29) * 11);
    expect(percentilesOf(merged(sketchOf(a), sketchOf(b)))).toEqual(percentilesOf(sketchOf([...a, ...b])));
  });

  it('has no percentiles without values', () => {
    expect(percentilesOf(new Map())).toBeNull();
    expect(percentilesOf(new Map([['12', 0]]))).toBeNull();
  });
});
