import { createRouter } from '../app';
import { PROJECT_PATH, guard } from '../http/guards';
import { forwardMetricsQuerySchema, metricsQuerySchema } from '../../schemas/metrics';
import { checked } from '../../schemas/field-issue';
import { parseOrRefuse } from '../../schemas/issues';
import { metricRange, type RangeQuery } from '../metrics/metric-range';
import { readForwardMetrics, readMetrics } from '../metrics/read-metrics';
import { retentionDays } from '../ticket-log/retention';
import { fieldRefusal, invalidParameter } from '../wire/errors';
import { ticketIdOf } from './ticket-params';
import * as answer from '../../schemas/answers';
import { ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';
import type { z } from 'zod';

/**
 * Metrics over time (issue 37 item 1, an extension): a ticket's, the project's and forwarding's counts
 * per bucket, read from D1's metric_points, which the objects that count push to off the request path.
 */
export const metricsRoutes = createRouter();

const owner = guard('owner', 'Only the project owner can read metrics.');
/** Points are kept for the plan's log retention; a plan that keeps its log without end keeps a year of points to ask for. */
const UNBOUNDED_RETENTION_DAYS = 366;

const RANGE = {
  from: textParameter('The range starts, ms since the epoch (default: `to` less 24 hours).'),
  to: textParameter('The range ends, ms since the epoch (default: now).'),
  bucket: textParameter('The bucket: 1m, 5m, 15m, 1h, 6h or 1d (default: the finest giving at most 1,440 points). Minute points are kept 2 days.'),
};

const METRICS_SUMMARY =
  'Percentiles come from a sketch of fixed logarithmic buckets (within 2 %) that merges exactly across minutes, hours, days and tickets. A consumption shows within about 20 seconds.';

function rangeOf(plan: string, query: RangeQuery) {
  const days = retentionDays(plan) ?? UNBOUNDED_RETENTION_DAYS;
  const range = metricRange(query, Date.now(), days);
  if ('field' in range) throw invalidParameter(`Invalid "${range.field}": ${range.message}.`, { field: range.field });
  return range;
}

/** The query, each member given once: a repeated one is refused rather than one of its values picked. */
async function parsedQuery<T extends z.ZodType>(queries: Record<string, string[]>, schema: T): Promise<z.output<T>> {
  const repeated = Object.entries(queries).find(([, values]) => values.length > 1);
  if (repeated) throw invalidParameter(`Invalid "${repeated[0]}": given more than once.`, { field: repeated[0] });
  const query = Object.fromEntries(Object.entries(queries).map(([name, values]) => [name, values[0]]));
  const parsed = await checked(() => parseOrRefuse(schema, query));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  return parsed.value;
}

const projectMetricsRoute = route({
  operationId: 'getProjectMetrics',
  tag: 'projects',
  guard: owner,
  query: RANGE,
  summary: `Extension: the project's consumptions over time, all its tickets merged: outcomes, failures by code, dry runs, duplicates, retries, dead letters, flood refusals, latency percentiles. ${METRICS_SUMMARY}`,
  success: ok('One point per bucket and the totals.', answer.metricsAnswer),
});

metricsRoutes.get(`${PROJECT_PATH}/metrics`, ...projectMetricsRoute.middleware, async (c) => {
  const range = rangeOf(c.get('project').plan, await parsedQuery(c.req.queries(), metricsQuerySchema));
  return c.json(await readMetrics(c.env.DB, c.get('project').service_id, 'project', range));
});

const ticketMetricsRoute = route({
  operationId: 'getTicketMetrics',
  tag: 'tickets',
  guard: owner,
  query: RANGE,
  summary: `Extension: one ticket's consumptions over time (the project's metrics, for this ticket). A ticket id with no consumption answers zeros. ${METRICS_SUMMARY}`,
  success: ok('One point per bucket and the totals.', answer.metricsAnswer),
});

metricsRoutes.get(`${PROJECT_PATH}/tickets/:ticket_id/metrics`, ...ticketMetricsRoute.middleware, async (c) => {
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const range = rangeOf(c.get('project').plan, await parsedQuery(c.req.queries(), metricsQuerySchema));
  return c.json(await readMetrics(c.env.DB, c.get('project').service_id, `ticket:${ticketId}`, range));
});

const forwardMetricsRoute = route({
  operationId: 'getForwardMetrics',
  tag: 'forward',
  guard: owner,
  query: { ...RANGE, by: textParameter('key (default): a series per Secret Key; destination: a series per destination origin.') },
  summary: `Extension: forwarded calls over time per Secret Key or per destination: calls, status classes, bytes relayed, latency percentiles. ${METRICS_SUMMARY}`,
  success: ok('A series per Secret Key or destination (the 20 first by name).', answer.forwardMetricsAnswer),
});

metricsRoutes.get(`${PROJECT_PATH}/forward/metrics`, ...forwardMetricsRoute.middleware, async (c) => {
  const query = await parsedQuery(c.req.queries(), forwardMetricsQuerySchema);
  const range = rangeOf(c.get('project').plan, query);
  return c.json(await readForwardMetrics(c.env.DB, c.get('project').service_id, query.by ?? 'key', range));
});
