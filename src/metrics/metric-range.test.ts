import { describe, expect, it } from 'vitest';
import { bucketStarts, metricRange } from './metric-range';
import { consumptionCounters, laterFailureCounters, nonZero, statusClass } from './counters';
import { ticketValues } from './metric-points';

const NOW = Date.UTC(2026, 10, 29, 12, 34, 56);
const HOUR = 3_600_000;

describe('metric ranges', () => {
  it('defaults to the last 24 hours by the minute, the first bucket floored', () => {
    const range = metricRange({}, NOW, 30);
    expect(range).toMatchObject({ to: NOW, bucketMs: 60_000, grain: 'm' });
    expect('from' in range && range.from % 60_000).toBe(0);
    expect('from' in range && bucketStarts(range).length).toBe(1_441);
  });

  it('reads a bucket from the coarsest grain it is made of', () => {
    expect(metricRange({ from: NOW - 7 * 24 * HOUR, bucket: '6h' }, NOW, 30)).toMatchObject({ grain: 'h', bucketMs: 6 * HOUR });
    expect(metricRange({ from: NOW - 30 * 24 * HOUR, bucket: '1d' }, NOW, 30)).toMatchObject({ grain: 'd' });
    expect(metricRange({ from: NOW - HOUR, bucket: '15m' }, NOW, 30)).toMatchObject({ grain: 'm' });
  });

  it('names the field of a range it cannot answer', () => {
    expect(metricRange({ from: NOW, to: NOW - 1 }, NOW, 30)).toMatchObject({ field: 'to' });
    expect(metricRange({ from: NOW - 40 * 24 * HOUR, bucket: '1d' }, NOW, 30)).toMatchObject({ field: 'from' });
    expect(metricRange({ from: NOW - 40 * 24 * HOUR, bucket: '1d' }, NOW, 90)).toMatchObject({ grain: 'd' });
    expect(metricRange({ from: NOW - 3 * 24 * HOUR, to: NOW - 2.5 * 24 * HOUR, bucket: '1m' }, NOW, 30)).toMatchObject({ field: 'bucket' });
    expect(metricRange({ from: NOW - 2 * 24 * HOUR + 60_000, bucket: '1m' }, NOW, 30)).toMatchObject({ field: 'bucket' });
    expect(metricRange({ to: NOW + 2 * 24 * HOUR }, NOW, 30)).toMatchObject({ field: 'to' });
  });
});

describe('counters', () => {
  it('a consumption counts its outcome, its code and its latency; a dry run and a duplicate only themselves', () => {
    expect(ticketValues(consumptionCounters({ check: false, duplicate: false, failed: true, code: 'X', ms: 10 }))).toMatchObject({
      consumptions: 1,
      failed: 1,
      failures_by_code: { X: 1 },
    });
    expect(consumptionCounters({ check: true, duplicate: false, failed: true, code: 'X', ms: 10 })).toEqual({ chk: 1 });
    expect(consumptionCounters({ check: false, duplicate: true, failed: false, code: null, ms: 10 })).toEqual({ dup: 1 });
  });

  it('a later failure moves a success to the failures, leaving no counter at zero', () => {
    const merged = { ...consumptionCounters({ check: false, duplicate: false, failed: false, code: null, ms: 0 }) };
    for (const [name, n] of Object.entries(laterFailureCounters('REQUEST_FAILED'))) merged[name] = (merged[name] ?? 0) + n;
    expect(nonZero(merged)).toEqual({ fail: 1, 'code:REQUEST_FAILED': 1, 'lc.z': 1 });
  });

  it('a status is its class, no answer an error', () => {
    expect([statusClass(204), statusClass(302), statusClass(429), statusClass(503), statusClass(null), statusClass(42)]).toEqual([
      '2xx',
      '3xx',
      '4xx',
      '5xx',
      'error',
      'error',
    ]);
  });
});
