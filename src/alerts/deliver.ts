/**
 * Sends one notification of an incident (opened or resolved) off the evaluation's path: a work-queue message
 * per notification, one per invocation. It costs 1 D1 read, the webhook (one fetch, 10 s at most), one outbox
 * insert (or provider call) per e-mail recipient (5 at most) and one D1 batch of 2 statements recording how it
 * went on the incident and its rule: at most 1 + 5 + 2 = 8 D1 queries and 6 subrequests. A failure is
 * recorded (last_delivery), never retried by the queue: the receiver being down is the owner's to see.
 */
import type { AlertDelivery, AlertKind } from '../../schemas/alerts';
import type { Env } from '../env';
import { senderOf } from '../mail/compose';
import { selectTransport } from '../mail/select-transport';
import { mailSettings } from '../mail/settings';
import { decryptText } from '../platform/crypto';
import { type AlertEvent, messageIdOf, sendAlertWebhook, webhookBody } from './webhook';

export const ALERT_DELIVER_KIND = 'alert.deliver';

export type AlertDeliverMessage = {
  kind: typeof ALERT_DELIVER_KIND;
  service_id: string;
  incident_id: string;
  event: AlertEvent;
};

/** The context its rule's webhook secret is encrypted under: a secret moved to another row does not decrypt. */
export const secretContext = (serviceId: string, ruleId: string) => `alert-webhook:${serviceId}:${ruleId}`;

interface DeliveryRow {
  incident_id: string;
  rule_id: string;
  state: string;
  opened_at: number;
  acknowledged_at: number | null;
  resolved_at: number | null;
  observed: string;
  name: string;
  kind: AlertKind;
  ticket_id: string | null;
  window_minutes: number;
  email_to: string;
  webhook_url: string | null;
  webhook_secret_enc: string | null;
  project_name: string;
}

const readDelivery = (db: D1Database, serviceId: string, incidentId: string) =>
  db
    .prepare(
      `SELECT i.incident_id, i.rule_id, i.state, i.opened_at, i.acknowledged_at, i.resolved_at, i.observed,
         r.name, r.kind, r.ticket_id, r.window_minutes, r.email_to, r.webhook_url, r.webhook_secret_enc, COALESCE(p.name, '') AS project_name
       FROM alert_incidents i JOIN alert_rules r ON r.service_id = i.service_id AND r.rule_id = i.rule_id
       LEFT JOIN projects p ON p.service_id = i.service_id
       WHERE i.service_id = ? AND i.incident_id = ?`,
    )
    .bind(serviceId, incidentId)
    .first<DeliveryRow>();

/** What the webhook's data and the mail tell of the incident. */
function dataOf(serviceId: string, row: DeliveryRow): Record<string, unknown> {
  return {
    service_id: serviceId,
    incident_id: row.incident_id,
    rule_id: row.rule_id,
    rule_name: row.name,
    kind: row.kind,
    ticket_id: row.ticket_id,
    state: row.state,
    opened_at: row.opened_at,
    acknowledged_at: row.acknowledged_at,
    resolved_at: row.resolved_at,
    observed: JSON.parse(row.observed) as unknown,
  };
}

const KIND_TEXT: Record<AlertKind, string> = {
  failure_rate: 'failure rate',
  failure_streak: 'failures in a row',
  p95_latency: 'p95 latency',
  flood_refused: 'flood control refusing requests',
  dead_letter: 'dead letters',
  destination_paused: 'a destination paused',
};

/** The mail of one notification (plain text; the HTML is the same text escaped). */
export function alertMail(serviceId: string, row: DeliveryRow, event: AlertEvent): { subject: string; text: string } {
  const what = `${row.name || KIND_TEXT[row.kind]}${row.ticket_id ? ` (ticket ${row.ticket_id})` : ''}`;
  const project = row.project_name || serviceId;
  const observed = JSON.parse(row.observed) as { value?: unknown; bound?: unknown };
  const subject = event === 'alert.opened' ? `[${project}] Alert opened: ${what}` : `[${project}] Alert resolved: ${what}`;
  const text = [
    event === 'alert.opened'
      ? `An alert of project ${project} opened: ${KIND_TEXT[row.kind]} was ${String(observed.value)} (bound ${String(observed.bound)}).`
      : `The alert of project ${project} resolved: its condition stayed false for ${row.window_minutes} minutes.`,
    `Rule: ${what} (${row.rule_id})`,
    `Incident: ${row.incident_id}, opened ${new Date(row.opened_at).toISOString()}${row.resolved_at ? `, resolved ${new Date(row.resolved_at).toISOString()}` : ''}`,
  ].join('\n');
  return { subject, text };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

async function sendMails(env: Env, serviceId: string, row: DeliveryRow, event: AlertEvent): Promise<string | undefined> {
  const recipients = JSON.parse(row.email_to) as string[];
  if (recipients.length === 0) return undefined;
  const transport = selectTransport(env);
  const { subject, text } = alertMail(serviceId, row, event);
  const from = senderOf(row.project_name || serviceId, mailSettings(env).fromAddress);
  for (const to of recipients) {
    const outcome = await transport.send(
      { from, to, subject, text, html: `<pre>${escapeHtml(text)}</pre>` },
      { service_id: serviceId, key: `${messageIdOf(row.incident_id, event)}:${to}`, kind: 'mail', ...(row.ticket_id ? { ticket_id: row.ticket_id } : {}) },
    );
    if (!outcome.ok) return `mail to ${to}: ${outcome.reason}`;
  }
  return undefined;
}

/** Sends the notification the message names, and records how it went on the incident and its rule. */
export async function deliverAlertJob(message: AlertDeliverMessage, env: Env): Promise<void> {
  const row = await readDelivery(env.DB, message.service_id, message.incident_id);
  if (!row) return; // The rule was deleted since: nobody to tell.
  const now = Date.now();
  const errors: string[] = [];
  let status: number | undefined;
  if (row.webhook_url && row.webhook_secret_enc) {
    const secret = await decryptText(env, row.webhook_secret_enc, secretContext(message.service_id, row.rule_id));
    const body = webhookBody(message.event, now, dataOf(message.service_id, row));
    const sent = await sendAlertWebhook(env, { url: row.webhook_url, secret }, { id: messageIdOf(row.incident_id, message.event), body, now });
    status = sent.status;
    if (!sent.ok) errors.push(`webhook: ${sent.error}`);
  }
  try {
    const mailError = await sendMails(env, message.service_id, row, message.event);
    if (mailError) errors.push(mailError);
  } catch (error) {
    errors.push(`mail: ${error instanceof Error ? error.message : String(error)}`);
  }
  const delivery: AlertDelivery = {
    at: now,
    event: message.event,
    ok: errors.length === 0,
    ...(status !== undefined ? { status } : {}),
    ...(errors.length ? { error: errors.join('; ').slice(0, 500) } : {}),
  };
  const text = JSON.stringify(delivery);
  await env.DB.batch([
    env.DB.prepare('UPDATE alert_incidents SET last_delivery = ? WHERE service_id = ? AND incident_id = ?').bind(text, message.service_id, row.incident_id),
    env.DB.prepare('UPDATE alert_rules SET last_delivery = ? WHERE service_id = ? AND rule_id = ?').bind(text, message.service_id, row.rule_id),
  ]);
}
