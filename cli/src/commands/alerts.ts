import type { Command } from 'commander';
import type { AlertIncidentAnswer, AlertRuleAnswer } from '../../../schemas/alerts';
import type { Ctx } from '../context';
import { usageError } from '../errors';

type Context = (cmd: Command) => Ctx;

const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A rule's bound, as a short text: `failed > 20% of >= 10`, `failures >= 3`, `p95 > 500ms`, or what any of it means. */
export function boundText(rule: Pick<AlertRuleAnswer, 'kind' | 'threshold_percent' | 'min_volume' | 'failures' | 'p95_ms'>): string {
  switch (rule.kind) {
    case 'failure_rate':
      return `failed > ${rule.threshold_percent}% of >= ${rule.min_volume}`;
    case 'failure_streak':
      return `failures in a row >= ${rule.failures}`;
    case 'p95_latency':
      return `p95 > ${rule.p95_ms}ms`;
    case 'flood_refused':
      return 'flood refusals > 0';
    case 'dead_letter':
      return 'dead letters > 0';
    case 'destination_paused':
      return 'paused destinations > 0';
  }
}

/** One rule as a line: id, state, kind and bound, scope, window and cooldown, channels, the last notification. */
export function formatAlertRule(rule: AlertRuleAnswer): string {
  const state = rule.enabled ? rule.state : 'disabled';
  const scope = rule.ticket_id === null ? 'project' : `ticket=${rule.ticket_id}`;
  const channels = [
    ...rule.channels.email.map((address) => `mail:${address}`),
    ...(rule.channels.webhook ? [`webhook:${rule.channels.webhook.url}`] : []),
  ].join(',');
  const delivery = rule.last_delivery
    ? `  last ${rule.last_delivery.event} ${rule.last_delivery.ok ? 'ok' : `FAILED (${rule.last_delivery.error ?? rule.last_delivery.status ?? ''})`} ${at(rule.last_delivery.at)}`
    : '';
  const name = rule.name ? `  "${rule.name}"` : '';
  return `${rule.rule_id}  ${state}  ${rule.kind}  ${boundText(rule)}  ${scope}  window=${rule.window_minutes}m cooldown=${rule.cooldown_minutes}m  ${channels}${name}${delivery}`;
}

/** One incident as a line: when it opened, its state, the rule and what it saw, when acknowledged and resolved. */
export function formatIncident(incident: AlertIncidentAnswer): string {
  const observed = incident.observed as { value?: unknown; bound?: unknown };
  const seen = observed.value !== undefined ? `  value=${String(observed.value)} bound=${String(observed.bound)}` : '';
  const acked = incident.acknowledged_at !== null ? `  acknowledged ${at(incident.acknowledged_at)}` : '';
  const resolved = incident.resolved_at !== null ? `  resolved ${at(incident.resolved_at)}` : '';
  const failed = incident.last_delivery && !incident.last_delivery.ok ? `  notification FAILED (${incident.last_delivery.error ?? ''})` : '';
  return `${at(incident.opened_at)}  ${incident.state}  ${incident.incident_id}  rule=${incident.rule_id} ${incident.kind ?? '(deleted rule)'}${incident.ticket_id ? ` ticket=${incident.ticket_id}` : ''}${seen}${acked}${resolved}${failed}`;
}

const STATES = ['open', 'acknowledged', 'resolved'];

export function registerAlerts(program: Command, context: Context): void {
  const alerts = program
    .command('alerts')
    .description('Alert rules and their incidents (extension): list the rules (the default), the incidents, or acknowledge one')
    .option('--ticket <ticket_id>', "only this ticket's rules")
    .action(async (options: { ticket?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const list = await api.all<AlertRuleAnswer>(paths.alertRules, { ticket_id: options.ticket });
      if (ctx.io.json) return ctx.io.printJson({ list });
      if (list.length === 0) return ctx.io.out('No alert rules.');
      for (const rule of list) ctx.io.out(formatAlertRule(rule));
    });

  alerts
    .command('incidents')
    .description('The incidents, newest first: open, acknowledged or resolved')
    .option('--state <state>', 'only incidents in this state: open, acknowledged or resolved')
    .option('--rule <rule_id>', "only this rule's incidents")
    .action(async (options: { state?: string; rule?: string }, cmd: Command) => {
      const ctx = context(cmd);
      if (options.state !== undefined && !STATES.includes(options.state)) throw usageError(`--state is one of ${STATES.join(', ')}.`);
      const { api, paths } = await ctx.session();
      const list = await api.all<AlertIncidentAnswer>(paths.incidents, { state: options.state, rule_id: options.rule });
      if (ctx.io.json) return ctx.io.printJson({ list });
      if (list.length === 0) return ctx.io.out('No incidents.');
      for (const incident of list) ctx.io.out(formatIncident(incident));
    });

  alerts
    .command('ack')
    .description('Acknowledge an open incident (it still resolves by itself once its condition stayed false for the window)')
    .argument('<incident_id>', 'the incident, as `svc alerts incidents` lists it')
    .action(async (incidentId: string, _options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const incident = await api.request<AlertIncidentAnswer>('POST', `${paths.incidents}/${encodeURIComponent(incidentId)}/acknowledge`, { body: {} });
      if (ctx.io.json) return ctx.io.printJson(incident);
      ctx.io.out(formatIncident(incident));
    });
}
