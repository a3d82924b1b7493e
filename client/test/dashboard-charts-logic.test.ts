import { describe, expect, it } from 'vitest';
import {
  bucketText,
  countSeries,
  failureCodeSeries,
  isQuiet,
  latencySeries,
  metricsQuery,
  seriesValues,
  sparkSeries,
  totalsText,
  type MetricCounts,
  type MetricPoint,
  type MetricsAnswer,
} from '../../dashboard/src/logic/metric-series';
import { presetOfSignature, sampleBody, wiringUrls } from '../../dashboard/src/components/wiring/wiring';
import { findPreset } from '../../schemas/signature-presets';

// The dashboard's chart shaping and provider wiring (pure parts), in Node: no browser, no Worker.

const ZERO: MetricCounts = {
  consumptions: 0,
  succeeded: 0,
  failed: 0,
  failures_by_code: {},
  dry_runs: 0,
  duplicates: 0,
  retries: 0,
  dead_letters: 0,
  flood_refused: 0,
  latency_ms: null,
  req_latency_ms: null,
};
const point = (start: number, counts: Partial<MetricCounts> = {}): MetricPoint => ({ ...ZERO, start, ...counts });
const answerOf = (points: MetricPoint[], totals: Partial<MetricCounts> = {}): MetricsAnswer => ({
  from: points[0]?.start ?? 0,
  to: (points.at(-1)?.start ?? 0) + 60_000,
  bucket_ms: 60_000,
  points,
  totals: { ...ZERO, ...totals },
});

describe('metric points as chart series', () => {
  const answer = answerOf(
    [
      point(60_000, { consumptions: 3, succeeded: 2, failed: 1, failures_by_code: { INVALID_SIGNATURE: 1 }, latency_ms: { p50: 5, p95: 9, p99: 12 } }),
      point(120_000),
      point(180_000, { consumptions: 2, failed: 2, failures_by_code: { REQ_FAILED: 1, INVALID_SIGNATURE: 1 }, dry_runs: 1 }),
    ],
    { consumptions: 5, failed: 3, failures_by_code: { INVALID_SIGNATURE: 2, REQ_FAILED: 1 }, dry_runs: 1 },
  );

  it('put x in seconds and one array per series, aligned with the points', () => {
    expect(countSeries(answer)).toEqual({
      labels: ['consumptions', 'failed', 'dry runs'],
      data: [
        [60, 120, 180],
        [3, 0, 2],
        [1, 0, 2],
        [0, 0, 1],
      ],
    });
    expect(sparkSeries(answer).labels).toEqual(['consumptions', 'failed']);
    expect(sparkSeries(answer).data).toHaveLength(3);
  });

  it('draw one failure series per code of the range, most frequent first, zero where a bucket has none of it', () => {
    expect(failureCodeSeries(answer)).toEqual({
      labels: ['INVALID_SIGNATURE', 'REQ_FAILED'],
      data: [
        [60, 120, 180],
        [1, 0, 1],
        [0, 0, 1],
      ],
    });
  });

  it('leave a gap (null) in the latency percentiles where nothing was timed', () => {
    expect(latencySeries(answer).data.slice(1)).toEqual([
      [5, null, null],
      [9, null, null],
      [12, null, null],
    ]);
    expect(seriesValues(latencySeries(answer)).p95).toEqual({ sum: 9, n: 1 });
    expect(seriesValues(countSeries(answer))).toEqual({ consumptions: { sum: 5, n: 3 }, failed: { sum: 3, n: 3 }, 'dry runs': { sum: 1, n: 3 } });
  });

  it('a range without consumptions, dry runs or refusals is quiet; the totals read as words', () => {
    expect(isQuiet(ZERO)).toBe(true);
    expect(isQuiet({ ...ZERO, dry_runs: 1 })).toBe(false);
    expect(totalsText(answer.totals)).toBe('5 consumptions, 3 failed (60 %), 1 dry run');
    expect(totalsText(ZERO)).toBe('0 consumptions');
  });

  it("asks the range ending now with the range's bucket", () => {
    expect(Object.fromEntries(new URLSearchParams(metricsQuery('1h', 10_000_000)))).toEqual({ from: '6400000', to: '10000000', bucket: '1m' });
    expect(new URLSearchParams(metricsQuery('24h', 100_000_000)).get('bucket')).toBe('1h');
    expect([60_000, 900_000, 21_600_000, 86_400_000].map(bucketText)).toEqual(['1 min', '15 min', '6 h', '1 d']);
  });
});

describe("a ticket's wiring", () => {
  it('names the four consume URLs of the ticket on the origin the page is served from', () => {
    expect(wiringUrls('https://hooks.example.com', 'svc1', 'own1', 'stripe-payments').map(({ name, url }) => [name, url])).toEqual([
      ['tp', 'https://hooks.example.com/tp/svc1/stripe-payments'],
      ['tg', 'https://hooks.example.com/tg/svc1/stripe-payments'],
      ['tpa', 'https://hooks.example.com/tpa/svc1/stripe-payments'],
      ['check', 'https://hooks.example.com/publ/check/svc1/own1/stripe-payments'],
    ]);
  });

  it("knows a stored signature's preset (header case aside) and starts the test from its sample event, else a small object", () => {
    const stripe = findPreset('stripe')!;
    const stored = { secretName: 'stripe_signing', ...stripe.signature, header: 'stripe-signature' };
    expect(presetOfSignature(stored)?.id).toBe('stripe');
    expect(presetOfSignature({ ...stored, signed: '${body}' })).toBeUndefined();
    expect(presetOfSignature(undefined)).toBeUndefined();
    expect(JSON.parse(sampleBody(stripe, 0))).toMatchObject({ object: 'event', type: 'payment_intent.succeeded' });
    expect(JSON.parse(sampleBody(findPreset('github'), 0))).toHaveProperty('zen');
    expect(JSON.parse(sampleBody(undefined, 0))).toEqual({ event: 'test', sent_at: '1970-01-01T00:00:00.000Z' });
  });
});
