/**
 * One uPlot chart (canvas) in a Preact component: made on mount and whenever its data changes, destroyed on
 * unmount, resized with its box. The series' sums and point counts are on the element as `data-values`
 * (what the Chromium tests compare with the consumptions they made). An empty range draws the axes and
 * says so, never an error.
 */
import { useEffect, useRef } from 'preact/hooks';
import './locale-guard';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import { hasValues, seriesValues, type Series } from '../../logic/metric-series';

/** Series colours, in order (distinct under the common colour-vision deficiencies). */
const COLOURS = ['#0b57d0', '#b3261e', '#5b6570', '#e37400', '#1e6b35', '#8e24aa', '#00838f', '#6d4c41'];

export interface TimeChartProps {
  /** The chart's accessible name and title. */
  title: string;
  series: Series;
  /** Shown over the axes when the range has nothing to draw. */
  emptyText: string;
  /** Whether to show the empty text (default: when no series has a value other than null or 0). */
  empty?: boolean;
  unit?: string;
  height?: number;
  /** A sparkline: no axes, no legend, no cursor. */
  spark?: boolean;
  /** Draw each point as a dot (a series with gaps, such as latency, may have lone points no line joins). */
  dots?: boolean;
  id?: string;
}

const allZero = (series: Series) => !series.data.slice(1).some((values) => values.some((v) => v !== null && v !== 0));

export function TimeChart({ title, series, emptyText, empty, unit = '', height = 180, spark = false, dots = false, id }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const isEmpty = empty ?? (series.labels.length === 0 || allZero(series) || !hasValues(series));

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = Math.max(spark ? 60 : 240, el.clientWidth);
    const options: uPlot.Options = {
      width,
      height,
      ...(spark ? {} : { title }),
      legend: { show: !spark },
      cursor: spark ? { show: false } : { drag: { x: false, y: false } },
      // Counts start at 0; a sparkline keeps a margin so a line at 0 or at its top is not cut in half.
      scales: {
        x: { time: true },
        y: { range: (_u, min, max) => (spark ? [-0.1 * Math.max(1, max ?? 1), 1.1 * Math.max(1, max ?? 1)] : [Math.min(0, min ?? 0), Math.max(1, max ?? 1)]) },
      },
      axes: spark
        ? [{ show: false }, { show: false }]
        : [{}, { label: unit || undefined, size: 50, values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? String(v) : v.toFixed(1))) }],
      series: [
        {},
        ...series.labels.map((label, i) => ({
          label,
          stroke: COLOURS[i % COLOURS.length],
          width: spark ? 1.5 : 2,
          spanGaps: false,
          points: { show: dots, size: 5 },
          ...(unit ? { value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${Math.round(v * 10) / 10} ${unit}`) } : {}),
        })),
      ],
    };
    // Without a series uPlot still draws the axes of the range.
    const chart = new uPlot(options, series.data as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => {
      const next = Math.max(spark ? 60 : 240, el.clientWidth);
      if (next !== chart.width) chart.setSize({ width: next, height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [series, height, spark, dots, unit, title]);

  return (
    <figure
      class={`time-chart${spark ? ' spark' : ''}`}
      id={id}
      data-values={JSON.stringify(seriesValues(series))}
      data-points={series.data[0].length}
      data-empty={isEmpty ? 'true' : 'false'}
    >
      {!spark && <figcaption class="visually-hidden">{title}</figcaption>}
      <div class="chart-box" ref={box} role="img" aria-label={`${title}${isEmpty ? `: ${emptyText}` : ''}`} />
      {isEmpty && <p class="chart-empty">{emptyText}</p>}
    </figure>
  );
}
