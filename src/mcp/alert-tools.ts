import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ALERT_KINDS, INCIDENT_STATES, MAX_COOLDOWN_MINUTES, MAX_EMAIL_RECIPIENTS, MAX_WINDOW_MINUTES } from '../../schemas/alerts';
import type { OwnerApi } from './owner-api';
import { toolResultOf } from './results';
import { guarded, limit, startKey, ticketId } from './tool-parts';

const ruleId = z.string().describe("The rule's rule_id (ar_…), as list_alert_rules answers it.");

/** An answer without the webhook's signing secret: no tool shows a secret; the owner reads it with GET …/alert-rules/{rule_id}/webhook-secret. */
const withoutSecret = (json: unknown): unknown => {
  if (json === null || typeof json !== 'object' || !('webhook_secret' in json)) return json;
  const { webhook_secret: secret, ...rest } = json as Record<string, unknown>;
  return { ...rest, webhook_secret_made: secret !== null };
};

/**
 * The tools over alert rules and incidents (issue 37 item 5, an extension): thin adaptors over the owner
 * routes, as the other tools are.
 */
export function registerAlertTools(server: McpServer, api: OwnerApi): void {
  server.registerTool(
    'list_alert_rules',
    {
      description:
        "List the project's alert rules (extension), one page at a time: each with its kind and bounds, window and cooldown, channels, whether it is " +
        'firing (an incident open) and its last notification (last_delivery: ok, or the webhook or mail error).',
      inputSchema: { ticket_id: ticketId.optional().describe('Only the rules of this ticket.'), start_key: startKey, limit },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => toolResultOf(await api('listAlertRules', { query: { ticket_id: args.ticket_id, startKey: args.start_key, limit: args.limit } }))),
  );

  server.registerTool(
    'create_alert_rule',
    {
      description:
        'Make an alert rule of the project or of one ticket (extension), evaluated each minute: failure_rate (threshold_percent, min_volume), ' +
        'failure_streak (failures), p95_latency (p95_ms), flood_refused, dead_letter, destination_paused. Notifications go by e-mail and/or a webhook ' +
        "signed per Standard Webhooks; the webhook's secret is not shown here (the owner reads it from the dashboard or GET …/webhook-secret).",
      inputSchema: {
        kind: z.enum(ALERT_KINDS),
        ticket_id: ticketId.optional().describe('A rule of this ticket; absent: the whole project.'),
        name: z.string().optional(),
        threshold_percent: z.number().optional().describe('failure_rate: over this percentage of failed consumptions in the window.'),
        min_volume: z.int().optional().describe('failure_rate: only with at least this many consumptions in the window (default 10).'),
        failures: z.int().optional().describe('failure_streak: this many failed consumptions in a row.'),
        p95_ms: z.int().optional().describe('p95_latency: p95 over this many ms in the window.'),
        window_minutes: z.int().optional().describe(`Minutes looked back over, and to stay false before resolving (1 to ${MAX_WINDOW_MINUTES}, default 5).`),
        cooldown_minutes: z
          .int()
          .optional()
          .describe(`No new incident within this many minutes of the last resolve (0 to ${MAX_COOLDOWN_MINUTES}, default 30).`),
        email: z.array(z.string()).optional().describe(`E-mail recipients (1 to ${MAX_EMAIL_RECIPIENTS}).`),
        webhook_url: z.string().optional().describe('A public http(s) URL the notifications are POSTed to.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (args) =>
      guarded(async () => {
        const { email, webhook_url: url, ...rule } = args;
        const channels = { ...(email ? { email } : {}), ...(url ? { webhook: { url } } : {}) };
        const answer = await api('createAlertRule', { body: { ...rule, ...(email || url ? { channels } : {}) } });
        return toolResultOf({ ...answer, json: withoutSecret(answer.json) });
      }),
  );

  server.registerTool(
    'delete_alert_rule',
    {
      description: 'Delete an alert rule and its incidents (extension); a notification not yet sent is not sent.',
      inputSchema: { rule_id: ruleId },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('deleteAlertRule', { params: { rule_id: args.rule_id } }))),
  );

  server.registerTool(
    'list_incidents',
    {
      description:
        "List the project's incidents (extension), newest first: open, acknowledged or resolved, with the rule, what opened it (observed: value and bound) " +
        'and its last notification.',
      inputSchema: {
        state: z.enum(INCIDENT_STATES).optional(),
        rule_id: ruleId.optional(),
        start_key: startKey,
        limit,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(await api('listAlertIncidents', { query: { state: args.state, rule_id: args.rule_id, startKey: args.start_key, limit: args.limit } })),
      ),
  );

  server.registerTool(
    'acknowledge_incident',
    {
      description: 'Acknowledge an open incident (extension): someone is on it. It still resolves by itself once its condition stayed false for the window.',
      inputSchema: { incident_id: z.string().describe("The incident's incident_id (inc_…).") },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('acknowledgeAlertIncident', { params: { incident_id: args.incident_id } }))),
  );
}
