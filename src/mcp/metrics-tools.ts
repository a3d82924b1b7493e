import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FORWARD_METRICS_BY, METRIC_RANGES, rangeQuery, type MetricRangeName } from '../../schemas/metrics';
import type { OwnerApi } from './owner-api';
import { toolResultOf } from './results';
import { guarded, ticketId } from './tool-parts';

const RANGE_NAMES = Object.keys(METRIC_RANGES) as [MetricRangeName, ...MetricRangeName[]];
const range = z.enum(RANGE_NAMES).optional().describe('The last 1h (by the minute), 24h (by the hour, the default), 7d (by 6 hours) or 30d (by the day).');

/** The tools over metrics (issue 37 item 1, an extension): thin adaptors over the owner routes, as the other tools are. */
export function registerMetricsTools(server: McpServer, api: OwnerApi): void {
  server.registerTool(
    'get_metrics',
    {
      description:
        "A ticket's metrics over a range, or the project's (all tickets merged) without ticket_id: one point per bucket and the totals of consumptions, " +
        'succeeded, failed, failures_by_code, dry_runs, duplicates, retries, dead_letters, flood_refused, and latency percentiles (latency_ms of the whole ' +
        "consumption, req_latency_ms of each req action's send; null when nothing was timed). A consumption shows within about 20 seconds.",
      inputSchema: { ticket_id: ticketId.optional(), range },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const query = rangeQuery(args.range ?? '24h', Date.now());
        const answer =
          args.ticket_id === undefined
            ? await api('getProjectMetrics', { query })
            : await api('getTicketMetrics', { params: { ticket_id: args.ticket_id }, query });
        return toolResultOf(answer);
      }),
  );

  server.registerTool(
    'get_forward_metrics',
    {
      description:
        "Forwarding's metrics over a range, a series per Secret Key (by: key, the default) or per destination origin (by: destination): calls, " +
        'status classes (2xx to 5xx, error: no answer), bytes of the answers relayed, latency percentiles.',
      inputSchema: { by: z.enum(FORWARD_METRICS_BY).optional().describe('key (default) or destination.'), range },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('getForwardMetrics', { query: { ...rangeQuery(args.range ?? '24h', Date.now()), by: args.by } }))),
  );
}
