/**
 * Alert rules and incidents (issue 37 item 5, an extension): what an owner sends to make or change a rule, and
 * what the routes answer. The evaluation (src/alerts/) reads only these shapes and D1.
 */
import { z } from 'zod';
import { isMailAddress } from './mail-address';
import { TICKET_ID_PATTERN } from './ticket';

export const ALERT_KINDS = ['failure_rate', 'failure_streak', 'p95_latency', 'flood_refused', 'dead_letter', 'destination_paused'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const INCIDENT_STATES = ['open', 'acknowledged', 'resolved'] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

/** Most rules a project keeps; most e-mail recipients of one rule. */
export const MAX_RULES_PER_PROJECT = 100;
export const MAX_EMAIL_RECIPIENTS = 5;
/** The longest window a rule looks back over (and waits out before it resolves), in minutes. */
export const MAX_WINDOW_MINUTES = 1440;
export const MAX_COOLDOWN_MINUTES = 10_080;

const ms = (what: string) => z.number().describe(`${what}, ms since the epoch.`);
const mailAddress = z.string().refine(isMailAddress, 'must be an e-mail address (local@domain)');

const channelsBody = z
  .strictObject({
    email: z
      .array(mailAddress)
      .min(1)
      .max(MAX_EMAIL_RECIPIENTS)
      .optional()
      .describe(`Addresses the notifications are mailed to through the project's mail path (the outbox, or the mail provider), 1 to ${MAX_EMAIL_RECIPIENTS}.`),
    webhook: z
      .strictObject({ url: z.string().min(1).max(2048).describe('An https or http URL on the public internet (a private address is refused).') })
      .nullable()
      .optional()
      .describe('A URL the notifications are POSTed to, signed per Standard Webhooks with the rule’s secret; null removes it.'),
  })
  .describe('Where the notifications go: e-mail, a webhook, or both (at least one).');

/** The members of a rule an owner sets; the kind's own bounds are checked by kindProblem. */
const ruleMembers = {
  name: z.string().max(100).optional().describe('A label for the owner.'),
  threshold_percent: z.number().gt(0).max(100).optional().describe('failure_rate: opens when failed / consumptions in the window is over this percentage.'),
  min_volume: z.int().min(1).max(1_000_000).optional().describe('failure_rate: only when the window holds at least this many consumptions (default 10).'),
  failures: z.int().min(1).max(100_000).optional().describe("failure_streak: opens when a ticket's consecutive failed consumptions reach this many."),
  p95_ms: z.int().min(1).max(3_600_000).optional().describe('p95_latency: opens when the p95 latency of consumptions in the window is over this many ms.'),
  window_minutes: z
    .int()
    .min(1)
    .max(MAX_WINDOW_MINUTES)
    .optional()
    .describe('The minutes the condition looks back over, and how long it must stay false before the incident resolves (default 5).'),
  cooldown_minutes: z
    .int()
    .min(0)
    .max(MAX_COOLDOWN_MINUTES)
    .optional()
    .describe('No new incident of the rule opens within this many minutes of the last resolve (default 30).'),
  channels: channelsBody.optional(),
  enabled: z.boolean().optional().describe('A disabled rule is not evaluated (default true).'),
};

export const alertRuleCreateBody = z
  .strictObject({
    kind: z
      .enum(ALERT_KINDS)
      .describe(
        'failure_rate (threshold_percent, min_volume), failure_streak (failures), p95_latency (p95_ms), flood_refused (flood control refused a request in the window), dead_letter (a dead letter was added in the window), destination_paused (a destination of the project, or of the ticket, is paused).',
      ),
    ticket_id: z.string().regex(TICKET_ID_PATTERN, 'must be a ticket id.').optional().describe('A rule of one ticket; absent: every ticket of the project.'),
    ...ruleMembers,
  })
  .describe('An alert rule.');
export type AlertRuleCreateBody = z.infer<typeof alertRuleCreateBody>;

export const alertRuleUpdateBody = z.strictObject(ruleMembers).describe('The members to change; kind and ticket_id stay.');
export type AlertRuleUpdateBody = z.infer<typeof alertRuleUpdateBody>;

/** The kind's own bounds of a rule, with its defaults filled in. */
export interface RuleBounds {
  threshold_percent?: number;
  min_volume?: number;
  failures?: number;
  p95_ms?: number;
}

const KIND_MEMBERS: Record<AlertKind, readonly (keyof RuleBounds)[]> = {
  failure_rate: ['threshold_percent', 'min_volume'],
  failure_streak: ['failures'],
  p95_latency: ['p95_ms'],
  flood_refused: [],
  dead_letter: [],
  destination_paused: [],
};
const REQUIRED: Partial<Record<AlertKind, keyof RuleBounds>> = { failure_rate: 'threshold_percent', failure_streak: 'failures', p95_latency: 'p95_ms' };
const DEFAULTS: RuleBounds = { min_volume: 10 };

/** The bounds of a rule of `kind` from its members, or the field at fault: a member of another kind, or a missing required one. */
export function boundsOf(kind: AlertKind, members: RuleBounds): { ok: true; bounds: RuleBounds } | { ok: false; field: string; message: string } {
  const own = KIND_MEMBERS[kind];
  for (const name of ['threshold_percent', 'min_volume', 'failures', 'p95_ms'] as const) {
    if (members[name] !== undefined && !own.includes(name)) return { ok: false, field: name, message: `not a member of a ${kind} rule.` };
  }
  const required = REQUIRED[kind];
  if (required && members[required] === undefined) return { ok: false, field: required, message: `required for a ${kind} rule.` };
  const bounds: RuleBounds = {};
  for (const name of own) {
    const value = members[name] ?? DEFAULTS[name];
    if (value !== undefined) bounds[name] = value;
  }
  return { ok: true, bounds };
}

const deliveryAnswer = z
  .object({
    at: ms('Sent'),
    event: z.enum(['alert.opened', 'alert.resolved']),
    ok: z.boolean().describe('Every channel took it: the webhook answered 2xx and the mail was handed over.'),
    status: z.int().optional().describe("The webhook's answer status."),
    error: z.string().optional().describe('Why a channel failed (the webhook unreachable, timed out, or refused; the mail not taken).'),
  })
  .describe('The last notification sent.');
export type AlertDelivery = z.infer<typeof deliveryAnswer>;

export const alertRuleAnswer = z.object({
  rule_id: z.string(),
  name: z.string(),
  kind: z.enum(ALERT_KINDS),
  ticket_id: z.string().nullable().describe('null: every ticket of the project.'),
  threshold_percent: z.number().optional(),
  min_volume: z.int().optional(),
  failures: z.int().optional(),
  p95_ms: z.int().optional(),
  window_minutes: z.int(),
  cooldown_minutes: z.int(),
  channels: z.object({ email: z.array(z.string()), webhook: z.object({ url: z.string() }).nullable() }),
  enabled: z.boolean(),
  state: z.enum(['ok', 'firing']).describe('firing: an incident of the rule is open or acknowledged.'),
  open_incident_id: z.string().nullable(),
  last_resolved_at: ms('The last incident resolved').nullable(),
  last_delivery: deliveryAnswer.nullable(),
  created: ms('Made'),
  updated: ms('Last changed'),
});
export type AlertRuleAnswer = z.infer<typeof alertRuleAnswer>;

export const alertRuleCreatedAnswer = alertRuleAnswer.extend({
  webhook_secret: z
    .string()
    .nullable()
    .describe("The webhook's signing secret (whsec_ and base64), shown here once; GET …/webhook-secret reads it again. null without a webhook."),
});

export const webhookSecretAnswer = z.object({ webhook_secret: z.string().describe('whsec_ and the base64 of 24 random bytes.') });

export const alertIncidentAnswer = z.object({
  incident_id: z.string(),
  rule_id: z.string(),
  kind: z.enum(ALERT_KINDS).nullable().describe("The rule's kind (null only while its rule is being deleted)."),
  ticket_id: z.string().nullable(),
  state: z.enum(INCIDENT_STATES),
  opened_at: ms('Opened'),
  acknowledged_at: ms('Acknowledged by the owner').nullable(),
  resolved_at: ms('Resolved (the condition stayed false for the window)').nullable(),
  observed: z.record(z.string(), z.unknown()).describe('What the evaluation saw when it opened: { value, bound, … }.'),
  last_delivery: deliveryAnswer.nullable(),
});
export type AlertIncidentAnswer = z.infer<typeof alertIncidentAnswer>;
