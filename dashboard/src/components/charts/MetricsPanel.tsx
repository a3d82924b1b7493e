/**
 * A ticket's (or with no ticket, the project's) metrics over a range the owner picks (1 h, 24 h, 7 d,
 * 30 d): consumptions and failures, failures by code, and the latency percentiles of the whole
 * consumption and of the req actions' sends. One metrics request per range shown (one D1 read on the
 * server); Refresh asks again. A range with nothing in it draws empty charts.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorText, type OwnerApi } from '../../api';
import {
  RANGE_LABELS,
  RANGE_NAMES,
  bucketText,
  countSeries,
  failureCodeSeries,
  hasValues,
  isQuiet,
  latencySeries,
  metricsQuery,
  totalsText,
  type MetricsAnswer,
  type RangeName,
} from '../../logic/metric-series';
import { TimeChart } from './TimeChart';
import { metricsPath } from './metrics-path';

export function MetricsPanel({ api, ticketId, initialRange = '24h' }: { api: OwnerApi; ticketId?: string; initialRange?: RangeName }) {
  const [range, setRange] = useState<RangeName>(initialRange);
  const [answer, setAnswer] = useState<MetricsAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);

  useEffect(() => {
    let current = true;
    setError(null);
    api
      .project<MetricsAnswer>('GET', metricsPath(ticketId, metricsQuery(range, Date.now())))
      .then((read) => current && setAnswer(read))
      .catch((err) => current && setError(errorText(err)));
    return () => {
      current = false;
    };
  }, [range, ticketId, reads]);

  const charts = useMemo(
    () =>
      answer && { counts: countSeries(answer), codes: failureCodeSeries(answer), latency: latencySeries(answer), req: latencySeries(answer, 'req_latency_ms') },
    [answer],
  );
  const scope = ticketId === undefined ? 'this project' : 'this ticket';
  const quiet = answer ? isQuiet(answer.totals) : true;
  const none = `No consumptions in this range (${RANGE_LABELS[range]}).`;

  return (
    <section class="metrics-panel" id="metrics" aria-labelledby="metrics-title" data-range={range} data-reads={reads}>
      <div class="title-bar">
        <h3 id="metrics-title">Traffic of {scope}</h3>
        <div class="ranges" role="group" aria-label="Range">
          {RANGE_NAMES.map((name) => (
            <button key={name} type="button" data-range={name} aria-pressed={range === name} onClick={() => setRange(name)}>
              {RANGE_LABELS[name]}
            </button>
          ))}
          <button type="button" id="metrics-refresh" onClick={() => setReads((n) => n + 1)}>
            Refresh
          </button>
        </div>
      </div>
      {error && (
        <p class="status error" role="alert">
          Could not read the metrics: {error}
        </p>
      )}
      {answer && charts && (
        <>
          <p id="metrics-totals" class="hint">
            {quiet ? none : `${RANGE_LABELS[range]}: ${totalsText(answer.totals)}.`} Points of {bucketText(answer.bucket_ms)}; a consumption shows within about
            30 s.
          </p>
          <div class="metrics-charts">
            <TimeChart id="chart-counts" title="Consumptions and failures" series={charts.counts} emptyText={none} empty={quiet} />
            <TimeChart
              id="chart-codes"
              title="Failures by code"
              series={charts.codes}
              emptyText={quiet ? none : 'No failures in this range.'}
              empty={charts.codes.labels.length === 0}
            />
            <TimeChart
              id="chart-latency"
              title="Latency of the whole consumption"
              series={charts.latency}
              unit="ms"
              dots
              emptyText={quiet ? none : 'Nothing timed in this range.'}
              empty={!hasValues(charts.latency)}
            />
            {hasValues(charts.req) && (
              <TimeChart id="chart-req-latency" title="Latency of req actions" series={charts.req} unit="ms" dots emptyText="" empty={false} />
            )}
          </div>
        </>
      )}
    </section>
  );
}
