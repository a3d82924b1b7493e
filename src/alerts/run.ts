/**
 * The evaluation of alert rules, each minute (the cron `* * * * *`), never in a consumption's path. One
 * invocation evaluates one page of RULES_PER_INVOCATION enabled rules across all projects and hands the rest
 * on in a work-queue message carrying its cursor, so every invocation is bounded whatever the number of rules:
 *   1 D1 query (the page) + 1 per rule (its observation, all in one batch) + at most 3 per rule (an opening:
 *   the incident, the rule and the pruning of its old incidents; a resolve 2; 1 to note when the condition
 *   turned false) = 1 + 10 + 30 = 41 D1 queries of Free's 50; 1 Queue sendBatch (the notifications and the
 *   continuation).
 * The notifications themselves are sent by their own messages (deliver.ts).
 */
import { randomBase62 } from '../../schemas/encoding';
import type { Env, WorkMessage } from '../env';
import { ALERT_DELIVER_KIND, type AlertDeliverMessage } from './deliver';
import { nextStep, type Step, verdictOf, type Verdict } from './evaluate';
import { observeAll } from './observe';
import { boundsOfRow, enabledRulePage, type RuleCursor, type RuleRow } from './store';

export const ALERT_EVALUATE_KIND = 'alert.evaluate';
/** The cron of wrangler.toml [triggers] that evaluates the alert rules. */
export const EVERY_MINUTE = '* * * * *';
/** Rules evaluated per invocation: 41 D1 queries at most (above). */
export const RULES_PER_INVOCATION = 10;
/** Incidents a rule keeps: the newest; an opening drops the resolved ones past them. */
export const KEPT_PER_RULE = 100;

export type AlertEvaluateMessage = {
  kind: typeof ALERT_EVALUATE_KIND;
  /** The minute being evaluated (the cron's scheduled time): every page of it judges the same window. */
  now: number;
  after: RuleCursor;
};

export const newIncidentId = (): string => `inc_${randomBase62(16)}`;

/** The D1 statements of a step (none for most), and the notification it sends. */
function writesOf(
  db: D1Database,
  rule: RuleRow,
  step: Step,
  verdict: Verdict,
  now: number,
): { statements: D1PreparedStatement[]; notify?: AlertDeliverMessage } {
  const key = [rule.service_id, rule.rule_id] as const;
  switch (step.step) {
    case 'open': {
      const incidentId = newIncidentId();
      return {
        statements: [
          // Inserted only while the rule has no open incident: an evaluation running twice opens one.
          db
            .prepare(
              `INSERT INTO alert_incidents (service_id, incident_id, rule_id, state, opened_at, observed)
               SELECT service_id, ?, rule_id, 'open', ?, ? FROM alert_rules WHERE service_id = ? AND rule_id = ? AND open_incident IS NULL`,
            )
            .bind(incidentId, now, JSON.stringify(verdict.observed), ...key),
          db
            .prepare('UPDATE alert_rules SET open_incident = ?, false_since = NULL WHERE service_id = ? AND rule_id = ? AND open_incident IS NULL')
            .bind(incidentId, ...key),
          db
            .prepare(
              `DELETE FROM alert_incidents WHERE service_id = ?1 AND rule_id = ?2 AND state = 'resolved' AND incident_id NOT IN (
                 SELECT incident_id FROM alert_incidents WHERE service_id = ?1 AND rule_id = ?2 ORDER BY opened_at DESC LIMIT ?3)`,
            )
            .bind(...key, KEPT_PER_RULE),
        ],
        notify: { kind: ALERT_DELIVER_KIND, service_id: rule.service_id, incident_id: incidentId, event: 'alert.opened' },
      };
    }
    case 'resolve':
      return {
        statements: [
          db
            .prepare(`UPDATE alert_incidents SET state = 'resolved', resolved_at = ? WHERE service_id = ? AND incident_id = ? AND state <> 'resolved'`)
            .bind(now, rule.service_id, rule.open_incident),
          db
            .prepare(
              'UPDATE alert_rules SET open_incident = NULL, false_since = NULL, last_resolved = ? WHERE service_id = ? AND rule_id = ? AND open_incident = ?',
            )
            .bind(now, ...key, rule.open_incident),
        ],
        notify: { kind: ALERT_DELIVER_KIND, service_id: rule.service_id, incident_id: rule.open_incident as string, event: 'alert.resolved' },
      };
    case 'mark_false':
      return { statements: [db.prepare('UPDATE alert_rules SET false_since = ? WHERE service_id = ? AND rule_id = ?').bind(step.since, ...key)] };
    case 'clear_false':
      return { statements: [db.prepare('UPDATE alert_rules SET false_since = NULL WHERE service_id = ? AND rule_id = ?').bind(...key)] };
    default:
      return { statements: [] };
  }
}

/** What one page did, for tests and the log. */
export interface PageReport {
  evaluated: number;
  opened: number;
  resolved: number;
  continued: boolean;
}

/**
 * Evaluates one page of enabled rules at `now`, after `after` (null: from the first), writes their
 * transitions, and queues their notifications and, when rules remain, the next page.
 */
export async function evaluateAlertPage(env: Env, now: number, after: RuleCursor | null, pageSize = RULES_PER_INVOCATION): Promise<PageReport> {
  const rows = await enabledRulePage(env.DB, after, pageSize + 1);
  const page = rows.slice(0, pageSize);
  const observations = await observeAll(env.DB, page, now);
  const statements: D1PreparedStatement[] = [];
  const messages: WorkMessage[] = [];
  const report: PageReport = { evaluated: page.length, opened: 0, resolved: 0, continued: false };
  page.forEach((rule, index) => {
    const seen = observations[index];
    if (seen === null) return;
    const verdict = verdictOf(rule.kind, boundsOfRow(rule), seen);
    const step = nextStep(rule, verdict.holds, now);
    if (step.step === 'open') report.opened++;
    if (step.step === 'resolve') report.resolved++;
    const writes = writesOf(env.DB, rule, step, verdict, now);
    statements.push(...writes.statements);
    if (writes.notify) messages.push(writes.notify);
  });
  if (statements.length) await env.DB.batch(statements);
  if (rows.length > pageSize) {
    const last = page[page.length - 1];
    const next: AlertEvaluateMessage = { kind: ALERT_EVALUATE_KIND, now, after: { service_id: last.service_id, rule_id: last.rule_id } };
    messages.push(next);
    report.continued = true;
  }
  if (messages.length) await env.WORK_QUEUE.sendBatch(messages.map((body) => ({ body })));
  return report;
}

/** The work-queue consumer of a continuation: the next page of the same minute. */
export async function alertEvaluateJob(message: AlertEvaluateMessage, env: Env): Promise<void> {
  await evaluateAlertPage(env, message.now, message.after);
}
