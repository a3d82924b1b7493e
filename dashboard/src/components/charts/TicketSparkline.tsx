/**
 * The tickets list's cell for one ticket: its consumptions and failures over the last 24 hours as a
 * sparkline (hourly points) and in words. One metrics request per ticket shown (each one D1 read on
 * the server): a page of tickets costs as many requests as it lists.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorText, type OwnerApi } from '../../api';
import { isQuiet, metricsQuery, sparkSeries, totalsText, type MetricsAnswer } from '../../logic/metric-series';
import { TimeChart } from './TimeChart';
import { metricsPath } from './metrics-path';

export function TicketSparkline({ api, ticketId, readAt }: { api: OwnerApi; ticketId: string; readAt: number }) {
  const [answer, setAnswer] = useState<MetricsAnswer | 'error' | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let current = true;
    setAnswer(null);
    api
      .project<MetricsAnswer>('GET', metricsPath(ticketId, metricsQuery('24h', readAt)))
      .then((read) => current && setAnswer(read))
      .catch((err) => {
        if (!current) return;
        setError(errorText(err));
        setAnswer('error');
      });
    return () => {
      current = false;
    };
  }, [ticketId, readAt]);
  const series = useMemo(() => (answer && answer !== 'error' ? sparkSeries(answer) : null), [answer]);

  if (answer === null) return <>…</>;
  if (answer === 'error' || !series) return <span title={error}>could not read the metrics</span>;
  const quiet = isQuiet(answer.totals);
  return (
    <div class="traffic">
      <TimeChart title={`Consumptions and failures of ${ticketId}, last 24 h`} series={series} emptyText="" empty={quiet} spark height={32} />
      <span class="totals">{quiet ? 'no consumptions' : totalsText(answer.totals)}</span>
    </div>
  );
}
