/**
 * A ticket's or the project's metrics (GET …/metrics, its answer type generated from schemas/answers.ts) shaped for the charts:
 * the ranges the pages offer, the query each asks, and the answer's points as uPlot's aligned arrays
 * (x in seconds, one array per series, null where a point has no value). Pure: no fetch, no DOM.
 */
import type { MetricsAnswer } from '../../../schemas/answer-types.generated';
import { METRIC_RANGES, rangeQuery, type MetricRangeName } from '../../../schemas/metrics';

export type { MetricsAnswer };
/** One bucket of counters (and its latency percentiles, null when nothing was timed in it). */
export type MetricCounts = MetricsAnswer['totals'];
export type MetricPoint = MetricsAnswer['points'][number];
type Percentiles = NonNullable<MetricCounts['latency_ms']>;

/** The ranges a chart offers (schemas/metrics.ts: the same as `svc stats` and the MCP tool), in order, with their labels. */
export const RANGE_LABELS: Record<MetricRangeName, string> = { '1h': '1 h', '24h': '24 h', '7d': '7 d', '30d': '30 d' };
export const RANGE_NAMES = Object.keys(METRIC_RANGES) as MetricRangeName[];
export type RangeName = MetricRangeName;

/** The query of a range ending at `now`, with the bucket the range is drawn with. */
export const metricsQuery = (range: MetricRangeName, now: number): string => new URLSearchParams(rangeQuery(range, now)).toString();

/** A bucket's length as the page says it: "1 min", "6 h", "1 d". */
export function bucketText(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  return `${Math.round(ms / 60_000)} min`;
}

/** uPlot's data: x values first, then one array per series. */
export type AlignedData = [number[], ...(number | null)[][]];

/** A chart's data and the name of each series after x, in the same order. */
export interface Series {
  labels: string[];
  data: AlignedData;
}

const xs = (answer: MetricsAnswer) => answer.points.map((point) => point.start / 1000);

/** Consumptions, of them the failed, and the dry runs apart, per bucket. */
export function countSeries(answer: MetricsAnswer): Series {
  return {
    labels: ['consumptions', 'failed', 'dry runs'],
    data: [xs(answer), answer.points.map((p) => p.consumptions), answer.points.map((p) => p.failed), answer.points.map((p) => p.dry_runs)],
  };
}

/** The sparkline of the tickets list: consumptions and failed only. */
export function sparkSeries(answer: MetricsAnswer): Series {
  const { labels, data } = countSeries(answer);
  return { labels: labels.slice(0, 2), data: [data[0], data[1], data[2]] };
}

/** Failed consumptions per bucket, one series per code that occurs in the range (most frequent first). */
export function failureCodeSeries(answer: MetricsAnswer): Series {
  const codes = Object.entries(answer.totals.failures_by_code)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([code]) => code);
  return { labels: codes, data: [xs(answer), ...codes.map((code) => answer.points.map((p) => p.failures_by_code[code] ?? 0))] };
}

/** p50, p95 and p99 per bucket of the whole consumption (`latency_ms`) or of the req actions' sends; null where nothing was timed. */
export function latencySeries(answer: MetricsAnswer, member: 'latency_ms' | 'req_latency_ms' = 'latency_ms'): Series {
  const of = (key: keyof Percentiles) => answer.points.map((p) => p[member]?.[key] ?? null);
  return { labels: ['p50', 'p95', 'p99'], data: [xs(answer), of('p50'), of('p95'), of('p99')] };
}

/** Whether the range holds nothing to draw: no consumption, no dry run, no refusal. */
export const isQuiet = (totals: MetricCounts): boolean => totals.consumptions === 0 && totals.dry_runs === 0 && totals.flood_refused === 0;

/** Whether any point of the series has a value (a latency chart of a range without timings has none). */
export const hasValues = (series: Series): boolean => series.data.slice(1).some((values) => values.some((v) => v !== null));

/** Per series: the sum of its values and how many points have one (the chart's `data-values`, which the tests read). */
export function seriesValues(series: Series): Record<string, { sum: number; n: number }> {
  return Object.fromEntries(
    series.labels.map((label, i) => {
      const values = ((series.data[i + 1] ?? []) as (number | null)[]).filter((v): v is number => v !== null);
      return [label, { sum: values.reduce((a: number, b: number) => a + b, 0), n: values.length }];
    }),
  );
}

/** The line under a chart: "12 consumptions, 2 failed (17 %)"; dry runs and refusals when there are some. */
export function totalsText(totals: MetricCounts): string {
  const parts = [
    `${totals.consumptions} consumption${totals.consumptions === 1 ? '' : 's'}`,
    totals.consumptions > 0 ? `${totals.failed} failed (${Math.round((100 * totals.failed) / totals.consumptions)} %)` : '',
    totals.dry_runs > 0 ? `${totals.dry_runs} dry run${totals.dry_runs === 1 ? '' : 's'}` : '',
    totals.duplicates > 0 ? `${totals.duplicates} duplicate${totals.duplicates === 1 ? '' : 's'}` : '',
    totals.dead_letters > 0 ? `${totals.dead_letters} dead letter${totals.dead_letters === 1 ? '' : 's'}` : '',
    totals.flood_refused > 0 ? `${totals.flood_refused} refused by flood control` : '',
  ];
  return parts.filter(Boolean).join(', ');
}
