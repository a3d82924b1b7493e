import type { Command } from 'commander';
import type { MetricsAnswer } from '../../../schemas/listings';
import { METRIC_RANGES, rangeQuery, type MetricRangeName } from '../../../schemas/metrics';
import type { Ctx } from '../context';
import { usageError } from '../errors';

type Context = (cmd: Command) => Ctx;

const BARS = ' ▁▂▃▄▅▆▇█';

/** A series as a line of block characters, the highest value full height. */
export function sparkline(values: number[]): string {
  const top = Math.max(0, ...values);
  return values.map((v) => (top === 0 ? BARS[0] : BARS[Math.round((v / top) * (BARS.length - 1))])).join('');
}

/** The query of a range name (1h, 24h, 7d, 30d) ending at `now`. */
export function statsQuery(range: string, now: number): Record<string, string> {
  if (!Object.hasOwn(METRIC_RANGES, range)) throw usageError(`--range takes one of ${Object.keys(METRIC_RANGES).join(', ')}, not "${range}".`);
  return rangeQuery(range as MetricRangeName, now);
}

/** A metrics answer as lines: the totals, failures by code, latency, and consumptions and failures over the range. */
export function formatStats(what: string, range: string, answer: MetricsAnswer): string[] {
  const t = answer.totals;
  const rate = t.consumptions === 0 ? '-' : `${((t.failed / t.consumptions) * 100).toFixed(1)}%`;
  const lines = [
    `${what}, last ${range}: ${t.consumptions} consumptions, ${t.succeeded} ok, ${t.failed} failed (${rate}); ${t.dry_runs} dry runs, ${t.duplicates} duplicates, ${t.retries} retries, ${t.dead_letters} dead letters, ${t.flood_refused} refused by flood control`,
  ];
  const codes = Object.entries(t.failures_by_code).sort(([, a], [, b]) => b - a);
  if (codes.length > 0) lines.push(`failures by code: ${codes.map(([code, n]) => `${code} ${n}`).join(', ')}`);
  const ms = (p: MetricsAnswer['totals']['latency_ms']) => (p ? `p50 ${p.p50} ms, p95 ${p.p95} ms, p99 ${p.p99} ms` : 'none timed');
  lines.push(`latency: ${ms(t.latency_ms)}; req: ${ms(t.req_latency_ms)}`);
  lines.push(`consumptions ${sparkline(answer.points.map((p) => p.consumptions))}`);
  lines.push(`failures     ${sparkline(answer.points.map((p) => p.failed))}`);
  return lines;
}

export function registerStats(program: Command, context: Context): void {
  program
    .command('stats [ticket_id]')
    .description("Metrics (extension): a ticket's consumptions, failures by code and latency percentiles over a range; without a ticket, the project's")
    .option('--range <range>', '1h, 24h (default), 7d or 30d', '24h')
    .action(async (ticketId: string | undefined, options: { range: string }, cmd: Command) => {
      const ctx = context(cmd);
      const query = statsQuery(options.range, Date.now());
      const { api, paths } = await ctx.session();
      const path = ticketId === undefined ? paths.metrics : `${paths.ticket(ticketId)}/metrics`;
      const answer = await api.request<MetricsAnswer>('GET', path, { query });
      if (ctx.io.json) return ctx.io.printJson(answer);
      for (const line of formatStats(ticketId === undefined ? 'The project' : ticketId, options.range, answer)) ctx.io.out(line);
    });
}
