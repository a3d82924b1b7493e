/**
 * The D1 rows of alert rules and incidents (migration 0024) and their answers. Each function is one D1 call
 * (a batch where a transition writes the rule and its incident together), so callers can count them.
 */
import type { AlertDelivery, AlertIncidentAnswer, AlertKind, AlertRuleAnswer, IncidentState, RuleBounds } from '../../schemas/alerts';

export interface RuleRow {
  service_id: string;
  rule_id: string;
  name: string;
  ticket_id: string | null;
  kind: AlertKind;
  params: string;
  window_minutes: number;
  cooldown_minutes: number;
  email_to: string;
  webhook_url: string | null;
  webhook_secret_enc: string | null;
  enabled: number;
  open_incident: string | null;
  false_since: number | null;
  last_resolved: number | null;
  last_delivery: string | null;
  created: number;
  updated: number;
}

export interface IncidentRow {
  service_id: string;
  incident_id: string;
  rule_id: string;
  state: IncidentState;
  opened_at: number;
  acknowledged_at: number | null;
  resolved_at: number | null;
  observed: string;
  last_delivery: string | null;
}

const RULE_COLUMNS =
  'service_id, rule_id, name, ticket_id, kind, params, window_minutes, cooldown_minutes, email_to, webhook_url, webhook_secret_enc, enabled, open_incident, false_since, last_resolved, last_delivery, created, updated';

export const boundsOfRow = (row: Pick<RuleRow, 'params'>): RuleBounds => JSON.parse(row.params) as RuleBounds;
export const emailsOfRow = (row: Pick<RuleRow, 'email_to'>): string[] => JSON.parse(row.email_to) as string[];
const deliveryOf = (text: string | null): AlertDelivery | null => (text ? (JSON.parse(text) as AlertDelivery) : null);

/** A rule as the routes answer it (never its secret). */
export function ruleAnswer(row: RuleRow): AlertRuleAnswer {
  return {
    rule_id: row.rule_id,
    name: row.name,
    kind: row.kind,
    ticket_id: row.ticket_id,
    ...boundsOfRow(row),
    window_minutes: row.window_minutes,
    cooldown_minutes: row.cooldown_minutes,
    channels: { email: emailsOfRow(row), webhook: row.webhook_url ? { url: row.webhook_url } : null },
    enabled: row.enabled === 1,
    state: row.open_incident ? 'firing' : 'ok',
    open_incident_id: row.open_incident,
    last_resolved_at: row.last_resolved,
    last_delivery: deliveryOf(row.last_delivery),
    created: row.created,
    updated: row.updated,
  };
}

export function incidentAnswer(row: IncidentRow & { kind: AlertKind | null; ticket_id: string | null }): AlertIncidentAnswer {
  return {
    incident_id: row.incident_id,
    rule_id: row.rule_id,
    kind: row.kind,
    ticket_id: row.ticket_id,
    state: row.state,
    opened_at: row.opened_at,
    acknowledged_at: row.acknowledged_at,
    resolved_at: row.resolved_at,
    observed: JSON.parse(row.observed) as Record<string, unknown>,
    last_delivery: deliveryOf(row.last_delivery),
  };
}

export const countRules = async (db: D1Database, serviceId: string): Promise<number> =>
  (await db.prepare('SELECT COUNT(*) AS n FROM alert_rules WHERE service_id = ?').bind(serviceId).first<{ n: number }>())?.n ?? 0;

export const readRule = (db: D1Database, serviceId: string, ruleId: string): Promise<RuleRow | null> =>
  db.prepare(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE service_id = ? AND rule_id = ?`).bind(serviceId, ruleId).first<RuleRow>();

export async function insertRule(db: D1Database, row: RuleRow): Promise<void> {
  await db
    .prepare(`INSERT INTO alert_rules (${RULE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      row.service_id,
      row.rule_id,
      row.name,
      row.ticket_id,
      row.kind,
      row.params,
      row.window_minutes,
      row.cooldown_minutes,
      row.email_to,
      row.webhook_url,
      row.webhook_secret_enc,
      row.enabled,
      row.open_incident,
      row.false_since,
      row.last_resolved,
      row.last_delivery,
      row.created,
      row.updated,
    )
    .run();
}

/** Writes what an owner may change of a rule (an update, or a rotated secret). */
export async function updateRuleSettings(db: D1Database, row: RuleRow): Promise<void> {
  await db
    .prepare(
      `UPDATE alert_rules SET name = ?, params = ?, window_minutes = ?, cooldown_minutes = ?, email_to = ?, webhook_url = ?, webhook_secret_enc = ?,
         enabled = ?, updated = ? WHERE service_id = ? AND rule_id = ?`,
    )
    .bind(
      row.name,
      row.params,
      row.window_minutes,
      row.cooldown_minutes,
      row.email_to,
      row.webhook_url,
      row.webhook_secret_enc,
      row.enabled,
      row.updated,
      row.service_id,
      row.rule_id,
    )
    .run();
}

/** Deletes the rule and its incidents (a notification still queued for one then finds nothing to send). */
export async function deleteRule(db: D1Database, serviceId: string, ruleId: string): Promise<boolean> {
  const [rule] = await db.batch([
    db.prepare('DELETE FROM alert_rules WHERE service_id = ? AND rule_id = ?').bind(serviceId, ruleId),
    db.prepare('DELETE FROM alert_incidents WHERE service_id = ? AND rule_id = ?').bind(serviceId, ruleId),
  ]);
  return (rule.meta.changes ?? 0) > 0;
}

/** Up to `count` rules of the project in rule_id order after `after`, optionally of one ticket. */
export async function rulePage(db: D1Database, serviceId: string, after: string | null, count: number, ticketId?: string): Promise<RuleRow[]> {
  const ticket = ticketId === undefined ? '' : 'AND ticket_id = ?';
  const args: unknown[] = [serviceId, after ?? '', ...(ticketId === undefined ? [] : [ticketId]), count];
  const { results } = await db
    .prepare(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE service_id = ? AND rule_id > ? ${ticket} ORDER BY rule_id LIMIT ?`)
    .bind(...args)
    .all<RuleRow>();
  return results;
}

/** Where the evaluation pages stand: after this project's rule. */
export type RuleCursor = {
  service_id: string;
  rule_id: string;
};

/** Up to `count` enabled rules of every project after `after`, in key order (the alert_rules_enabled index). */
export async function enabledRulePage(db: D1Database, after: RuleCursor | null, count: number): Promise<RuleRow[]> {
  const { results } = await db
    .prepare(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE enabled = 1 AND (service_id, rule_id) > (?, ?) ORDER BY service_id, rule_id LIMIT ?`)
    .bind(after?.service_id ?? '', after?.rule_id ?? '', count)
    .all<RuleRow>();
  return results;
}

const INCIDENT_SELECT = `SELECT i.service_id, i.incident_id, i.rule_id, i.state, i.opened_at, i.acknowledged_at, i.resolved_at, i.observed, i.last_delivery,
  r.kind AS kind, r.ticket_id AS ticket_id
  FROM alert_incidents i LEFT JOIN alert_rules r ON r.service_id = i.service_id AND r.rule_id = i.rule_id`;

export type ListedIncident = IncidentRow & { kind: AlertKind | null; ticket_id: string | null };

/** Incidents of the project, newest first, after the position (opened_at, incident_id) given. */
export async function incidentPage(
  db: D1Database,
  serviceId: string,
  filter: { state?: IncidentState; rule_id?: string },
  after: { t: number; k: string } | null,
  count: number,
): Promise<ListedIncident[]> {
  const where = ['i.service_id = ?'];
  const args: unknown[] = [serviceId];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    args.push(...values);
  };
  if (filter.state) add('i.state = ?', filter.state);
  if (filter.rule_id) add('i.rule_id = ?', filter.rule_id);
  if (after) add('(i.opened_at, i.incident_id) < (?, ?)', after.t, after.k);
  const { results } = await db
    .prepare(`${INCIDENT_SELECT} WHERE ${where.join(' AND ')} ORDER BY i.opened_at DESC, i.incident_id DESC LIMIT ?`)
    .bind(...args, count)
    .all<ListedIncident>();
  return results;
}

export const readIncident = (db: D1Database, serviceId: string, incidentId: string): Promise<ListedIncident | null> =>
  db.prepare(`${INCIDENT_SELECT} WHERE i.service_id = ? AND i.incident_id = ?`).bind(serviceId, incidentId).first<ListedIncident>();

/** Acknowledges an open incident; false when it is not open (acknowledged already, or resolved). */
export const acknowledgeIncident = async (db: D1Database, serviceId: string, incidentId: string, now: number): Promise<boolean> =>
  ((
    await db
      .prepare(`UPDATE alert_incidents SET state = 'acknowledged', acknowledged_at = ? WHERE service_id = ? AND incident_id = ? AND state = 'open'`)
      .bind(now, serviceId, incidentId)
      .run()
  ).meta.changes ?? 0) > 0;
