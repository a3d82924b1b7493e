/**
 * Alert rules and incidents (issue 37 item 5, an extension): an owner makes, lists, changes and deletes rules
 * of the project or of one ticket, reads and rotates a rule's webhook secret, lists the incidents and
 * acknowledges one. The evaluation runs each minute off every request's path (src/alerts/run.ts).
 */
import { z } from 'zod';
import {
  type AlertRuleCreateBody,
  type AlertRuleUpdateBody,
  MAX_RULES_PER_PROJECT,
  alertIncidentAnswer,
  alertRuleAnswer,
  alertRuleCreateBody,
  alertRuleCreatedAnswer,
  alertRuleUpdateBody,
  boundsOf,
  INCIDENT_STATES,
  webhookSecretAnswer,
} from '../../schemas/alerts';
import { randomBase62 } from '../../schemas/encoding';
import * as answer from '../../schemas/answers';
import { secretContext } from '../alerts/deliver';
import {
  type RuleRow,
  acknowledgeIncident,
  countRules,
  deleteRule,
  emailsOfRow,
  incidentAnswer,
  incidentPage,
  insertRule,
  readIncident,
  readRule,
  rulePage,
  ruleAnswer,
  updateRuleSettings,
} from '../alerts/store';
import { newWebhookSecret } from '../alerts/webhook';
import { createRouter } from '../app';
import type { Env } from '../env';
import { PROJECT_PATH, guard } from '../http/guards';
import { OutboundError } from '../outbound/errors';
import { checkDestination } from '../outbound/fetch';
import { PAGING, deleted, ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';
import { decryptText, encryptText } from '../platform/crypto';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { pageOf, pageRequest } from '../wire/paging';
import { ticketIdOf, ticketNotFound } from './ticket-params';

export const alertRoutes = createRouter();

const owner = guard('owner', "Only the project owner can read or change the project's alert rules and incidents.");
const RULES = `${PROJECT_PATH}/alert-rules`;
const RULE = `${RULES}/:rule_id`;
const INCIDENTS = `${PROJECT_PATH}/incidents`;

const RULE_ID = /^ar_[0-9A-Za-z]{16}$/;
const INCIDENT_ID = /^inc_[0-9A-Za-z]{16}$/;
const DEFAULT_WINDOW_MINUTES = 5;
const DEFAULT_COOLDOWN_MINUTES = 30;

const noSuchRule = () => new SvcHttpError('NOT_FOUND', 'This project has no alert rule with this rule_id.', { status: 404 });
const noSuchIncident = () => new SvcHttpError('NOT_FOUND', 'This project has no incident with this incident_id.', { status: 404 });

/** A rule's bound refused, naming its field. */
const boundsRefusal = (bounds: { field: string; message: string }) => invalidParameter(`Invalid "${bounds.field}": ${bounds.message}`, { field: bounds.field });

function idOf(param: string | undefined, pattern: RegExp, field: string): string {
  const id = param ?? '';
  if (!pattern.test(id)) throw invalidParameter(`Invalid "${field}": not an id this service hands out.`, { field });
  return id;
}

/** The webhook URL as the outbound layer will call it: a private address (or a malformed URL) is refused now, naming the field. */
function checkWebhookUrl(env: Env, url: string): void {
  const field = 'channels.webhook.url';
  try {
    checkDestination(url, env);
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw invalidParameter(`Invalid "${field}": ${error.message}`, { field, ...error.detail });
  }
}

/** The rule's row after `changes`, every member checked; the secret is made when a webhook is first given. */
async function ruleWith(env: Env, base: RuleRow, changes: AlertRuleUpdateBody, now: number): Promise<{ row: RuleRow; secret: string | null }> {
  const current = JSON.parse(base.params) as Record<string, number>;
  const bounds = boundsOf(base.kind, { ...current, ...pickBounds(changes) });
  if (!bounds.ok) throw boundsRefusal(bounds);
  const email = changes.channels?.email ?? emailsOfRow(base);
  const webhookUrl = changes.channels && 'webhook' in changes.channels ? (changes.channels.webhook?.url ?? null) : base.webhook_url;
  if (email.length === 0 && webhookUrl === null) {
    throw invalidParameter('Invalid "channels": give an e-mail address or a webhook (or both).', { field: 'channels' });
  }
  if (webhookUrl !== null && webhookUrl !== base.webhook_url) checkWebhookUrl(env, webhookUrl);
  let secretEnc = webhookUrl === null ? null : base.webhook_secret_enc;
  let secret: string | null = null;
  if (webhookUrl !== null && secretEnc === null) {
    secret = newWebhookSecret();
    secretEnc = await encryptText(env, secret, secretContext(base.service_id, base.rule_id));
  }
  return {
    row: {
      ...base,
      name: changes.name ?? base.name,
      params: JSON.stringify(bounds.bounds),
      window_minutes: changes.window_minutes ?? base.window_minutes,
      cooldown_minutes: changes.cooldown_minutes ?? base.cooldown_minutes,
      email_to: JSON.stringify(email),
      webhook_url: webhookUrl,
      webhook_secret_enc: secretEnc,
      enabled: changes.enabled === undefined ? base.enabled : changes.enabled ? 1 : 0,
      updated: now,
    },
    secret,
  };
}

const pickBounds = (body: AlertRuleUpdateBody) =>
  Object.fromEntries(
    Object.entries(body).filter(([name, value]) => ['threshold_percent', 'min_volume', 'failures', 'p95_ms'].includes(name) && value !== undefined),
  );

async function requireTicket(db: D1Database, serviceId: string, ticketId: string): Promise<void> {
  const row = await db.prepare('SELECT 1 AS found FROM tickets WHERE service_id = ? AND ticket_id = ?').bind(serviceId, ticketId).first();
  if (!row) throw ticketNotFound();
}

const createRuleRoute = route({
  operationId: 'createAlertRule',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  body: alertRuleCreateBody,
  summary: `Extension: make an alert rule of the project, or of one ticket (ticket_id). Evaluated each minute from the metrics; an incident opens once per episode and resolves once the condition stayed false for window_minutes; notifications go by e-mail and/or a webhook signed per Standard Webhooks. The webhook's secret is answered here once. At most ${MAX_RULES_PER_PROJECT} rules per project.`,
  success: ok('The rule, with its webhook secret.', alertRuleCreatedAnswer),
});

alertRoutes.post(RULES, ...createRuleRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const body: AlertRuleCreateBody = await readBody(c, createRuleRoute);
  const bounds = boundsOf(body.kind, body);
  if (!bounds.ok) throw boundsRefusal(bounds);
  if (!body.channels) throw invalidParameter('Invalid "channels": give an e-mail address or a webhook (or both).', { field: 'channels' });
  const now = Date.now();
  const base: RuleRow = {
    service_id: serviceId,
    rule_id: `ar_${randomBase62(16)}`,
    name: '',
    ticket_id: body.ticket_id ?? null,
    kind: body.kind,
    params: '{}',
    window_minutes: DEFAULT_WINDOW_MINUTES,
    cooldown_minutes: DEFAULT_COOLDOWN_MINUTES,
    email_to: '[]',
    webhook_url: null,
    webhook_secret_enc: null,
    enabled: 1,
    open_incident: null,
    false_since: null,
    last_resolved: null,
    last_delivery: null,
    created: now,
    updated: now,
  };
  const { kind: _kind, ticket_id: _ticket, ...changes } = body;
  const { row, secret } = await ruleWith(c.env, base, changes, now);
  if (row.ticket_id !== null) await requireTicket(c.env.DB, serviceId, row.ticket_id);
  if ((await countRules(c.env.DB, serviceId)) >= MAX_RULES_PER_PROJECT) {
    throw new SvcHttpError('INVALID_REQUEST', `A project keeps at most ${MAX_RULES_PER_PROJECT} alert rules: delete one first.`);
  }
  await insertRule(c.env.DB, row);
  return c.json({ ...ruleAnswer(row), webhook_secret: secret });
});

const listRulesRoute = route({
  operationId: 'listAlertRules',
  tag: 'alerts',
  guard: owner,
  query: {
    ticket_id: { description: 'Only the rules of this ticket (a project rule covers every ticket: it is not among them).', schema: z.string() },
    ...PAGING,
  },
  summary: "Extension: the project's alert rules, by rule_id, each with its state (firing while an incident is open) and its last notification.",
  success: ok('A page of rules.', answer.listingOf(alertRuleAnswer)),
});

const isRulePosition = (value: unknown): value is string => typeof value === 'string';
const QUERY_MEMBERS = new Set(['ticket_id', 'limit', 'startKey']);

alertRoutes.get(RULES, ...listRulesRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const request = pageRequest(c.req);
  const unknown = Object.keys(c.req.query()).find((name) => !QUERY_MEMBERS.has(name));
  if (unknown) throw invalidParameter(`Invalid "${unknown}": not a parameter of this listing.`, { field: unknown });
  const ticket = c.req.query('ticket_id');
  const ticketId = ticket === undefined ? undefined : ticketIdOf(ticket);
  const page = await pageOf(request, {
    isPosition: isRulePosition,
    rows: (after, count) => rulePage(c.env.DB, serviceId, after, count, ticketId),
    position: (row) => row.rule_id,
    shape: ruleAnswer,
  });
  return c.json(page);
});

const getRuleRoute = route({
  operationId: 'getAlertRule',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  summary: 'Extension: one alert rule.',
  success: ok('The rule.', alertRuleAnswer),
});

alertRoutes.get(RULE, ...getRuleRoute.middleware, async (c) => {
  const row = await readRule(c.env.DB, c.get('project').service_id, idOf(c.req.param('rule_id'), RULE_ID, 'rule_id'));
  if (!row) throw noSuchRule();
  return c.json(ruleAnswer(row));
});

const updateRuleRoute = route({
  operationId: 'updateAlertRule',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  body: alertRuleUpdateBody,
  summary:
    "Extension: change an alert rule's bounds, window, cooldown, channels or enabled; kind and ticket_id stay. A webhook given to a rule without one gets a new secret, answered here once; channels.webhook null removes it (and its secret).",
  success: ok('The rule (webhook_secret: a new secret, else null).', alertRuleCreatedAnswer),
});

alertRoutes.patch(RULE, ...updateRuleRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const ruleId = idOf(c.req.param('rule_id'), RULE_ID, 'rule_id');
  const body = await readBody(c, updateRuleRoute);
  const base = await readRule(c.env.DB, serviceId, ruleId);
  if (!base) throw noSuchRule();
  const { row, secret } = await ruleWith(c.env, base, body, Date.now());
  await updateRuleSettings(c.env.DB, row);
  return c.json({ ...ruleAnswer(row), webhook_secret: secret });
});

const deleteRuleRoute = route({
  operationId: 'deleteAlertRule',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  summary: 'Extension: delete an alert rule and its incidents (a notification not yet sent is not sent).',
  success: deleted,
});

alertRoutes.delete(RULE, ...deleteRuleRoute.middleware, async (c) => {
  const found = await deleteRule(c.env.DB, c.get('project').service_id, idOf(c.req.param('rule_id'), RULE_ID, 'rule_id'));
  if (!found) throw noSuchRule();
  return c.json({ deleted: true as const });
});

const getSecretRoute = route({
  operationId: 'getAlertWebhookSecret',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  summary: "Extension: the signing secret of a rule's webhook (404 when the rule has no webhook).",
  success: ok('The secret.', webhookSecretAnswer),
});

alertRoutes.get(`${RULE}/webhook-secret`, ...getSecretRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const row = await readRule(c.env.DB, serviceId, idOf(c.req.param('rule_id'), RULE_ID, 'rule_id'));
  if (!row?.webhook_secret_enc) throw noSuchRule();
  return c.json({ webhook_secret: await decryptText(c.env, row.webhook_secret_enc, secretContext(serviceId, row.rule_id)) });
});

const rotateSecretRoute = route({
  operationId: 'rotateAlertWebhookSecret',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  summary: "Extension: replace the signing secret of a rule's webhook with a new one (the old one no longer signs); answers the new one.",
  success: ok('The new secret.', webhookSecretAnswer),
});

alertRoutes.post(`${RULE}/webhook-secret/rotate`, ...rotateSecretRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const row = await readRule(c.env.DB, serviceId, idOf(c.req.param('rule_id'), RULE_ID, 'rule_id'));
  if (!row?.webhook_url) throw noSuchRule();
  const secret = newWebhookSecret();
  const sealed = await encryptText(c.env, secret, secretContext(serviceId, row.rule_id));
  await updateRuleSettings(c.env.DB, { ...row, webhook_secret_enc: sealed, updated: Date.now() });
  return c.json({ webhook_secret: secret });
});

const listIncidentsRoute = route({
  operationId: 'listAlertIncidents',
  tag: 'alerts',
  guard: owner,
  query: {
    state: { description: 'Only incidents in this state.', schema: z.enum(INCIDENT_STATES) },
    rule_id: { description: 'Only the incidents of this rule.', schema: z.string() },
    ...PAGING,
  },
  summary: "Extension: the project's incidents, newest first: open, acknowledged or resolved, each with what opened it and its last notification.",
  success: ok('A page of incidents.', answer.listingOf(alertIncidentAnswer)),
});

const isIncidentPosition = (value: unknown): value is { t: number; k: string } =>
  typeof value === 'object' && value !== null && typeof (value as { t?: unknown }).t === 'number' && typeof (value as { k?: unknown }).k === 'string';
const INCIDENT_QUERY = new Set(['state', 'rule_id', 'limit', 'startKey']);

alertRoutes.get(INCIDENTS, ...listIncidentsRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const query = c.req.query();
  const request = pageRequest(c.req);
  const unknown = Object.keys(query).find((name) => !INCIDENT_QUERY.has(name));
  if (unknown) throw invalidParameter(`Invalid "${unknown}": not a parameter of this listing.`, { field: unknown });
  const state = query.state;
  if (state !== undefined && !(INCIDENT_STATES as readonly string[]).includes(state)) {
    throw invalidParameter(`Invalid "state": one of ${INCIDENT_STATES.join(', ')}.`, { field: 'state' });
  }
  const ruleId = query.rule_id === undefined ? undefined : idOf(query.rule_id, RULE_ID, 'rule_id');
  const page = await pageOf(request, {
    isPosition: isIncidentPosition,
    rows: (after, count) =>
      incidentPage(
        c.env.DB,
        serviceId,
        { ...(state ? { state: state as (typeof INCIDENT_STATES)[number] } : {}), ...(ruleId ? { rule_id: ruleId } : {}) },
        after,
        count,
      ),
    position: (row) => ({ t: row.opened_at, k: row.incident_id }),
    shape: incidentAnswer,
  });
  return c.json(page);
});

const acknowledgeRoute = route({
  operationId: 'acknowledgeAlertIncident',
  tag: 'alerts',
  guard: owner,
  notFound: true,
  summary:
    'Extension: acknowledge an open incident (someone is on it). It still resolves by itself once its condition stayed false for the window; acknowledging one already acknowledged or resolved changes nothing.',
  success: ok('The incident.', alertIncidentAnswer),
});

alertRoutes.post(`${INCIDENTS}/:incident_id/acknowledge`, ...acknowledgeRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const incidentId = idOf(c.req.param('incident_id'), INCIDENT_ID, 'incident_id');
  await acknowledgeIncident(c.env.DB, serviceId, incidentId, Date.now());
  const row = await readIncident(c.env.DB, serviceId, incidentId);
  if (!row) throw noSuchIncident();
  return c.json(incidentAnswer(row));
});
