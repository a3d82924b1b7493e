/**
 * What the evaluation reads for each rule, from D1 only: the rule's window of metric points (the ticket's or
 * the project's scope), the failure streaks, or the paused destinations. One D1 statement per rule, sent for a
 * whole page of rules in one batch.
 */
import type { RuleBounds } from '../../schemas/alerts';
import { ticketCallerKey } from '../forward/destination-report';
import { type Observation, windowRange } from './evaluate';
import { type WindowTotals, windowStatement, windowTotalsOf } from './metric-window';
import type { RuleRow } from './store';

type Rule = Pick<RuleRow, 'service_id' | 'ticket_id' | 'kind' | 'window_minutes'> & { bounds?: RuleBounds };

/** The metric scope of a rule: its ticket's, or the project's (all tickets merged). */
export const scopeOf = (rule: Pick<RuleRow, 'ticket_id'>): string => (rule.ticket_id === null ? 'project' : `ticket:${rule.ticket_id}`);

/** The one statement that reads what a rule's condition is judged on at `now`. */
export function observationStatement(db: D1Database, rule: Rule, now: number): D1PreparedStatement {
  switch (rule.kind) {
    case 'failure_streak':
      return rule.ticket_id === null
        ? db.prepare('SELECT MAX(streak) AS n FROM failure_streaks WHERE service_id = ?').bind(rule.service_id)
        : db.prepare('SELECT streak AS n FROM failure_streaks WHERE service_id = ? AND ticket_id = ?').bind(rule.service_id, rule.ticket_id);
    case 'destination_paused':
      return rule.ticket_id === null
        ? db.prepare('SELECT COUNT(*) AS n FROM destination_circuits WHERE service_id = ?').bind(rule.service_id)
        : db
            .prepare('SELECT COUNT(*) AS n FROM destination_circuits WHERE service_id = ? AND caller_key = ?')
            .bind(rule.service_id, ticketCallerKey(rule.ticket_id));
    default:
      return windowStatement(db, rule.service_id, scopeOf(rule), windowRange(now, rule.window_minutes));
  }
}

/** The observation of a rule from the rows its statement read. */
export function observationOf(rule: Rule, rows: readonly Record<string, unknown>[]): Observation {
  if (rule.kind === 'failure_streak') return { streak: Number(rows[0]?.n ?? 0) };
  if (rule.kind === 'destination_paused') return { paused: Number(rows[0]?.n ?? 0) };
  const totals: WindowTotals = windowTotalsOf(rows);
  return {
    consumptions: totals.consumptions,
    failed: totals.failed,
    p95_ms: totals.p95_ms,
    flood_refused: totals.flood_refused,
    dead_letters: totals.dead_letters,
  };
}

/** What a rule's read (or its reading) that failed leaves: nothing to judge this minute, and a log line. */
function skipped(rule: Rule, error: unknown): null {
  console.error('alert rule not evaluated', rule.kind, error instanceof Error ? error.message : String(error));
  return null;
}

/**
 * Reads the observations of a page of rules in one D1 batch (one statement per rule). Should the batch fail,
 * each rule is read alone (the same number of queries); a rule whose read or rows fail is left out (null) this
 * minute: one rule never keeps the others from being evaluated.
 */
export async function observeAll(db: D1Database, rules: readonly Rule[], now: number): Promise<(Observation | null)[]> {
  if (rules.length === 0) return [];
  const statements = rules.map((rule) => observationStatement(db, rule, now));
  const read = (rule: Rule, rows: readonly Record<string, unknown>[]) => {
    try {
      return observationOf(rule, rows);
    } catch (error) {
      return skipped(rule, error);
    }
  };
  let results: D1Result<Record<string, unknown>>[];
  try {
    results = await db.batch<Record<string, unknown>>(statements);
  } catch {
    return Promise.all(
      rules.map((rule, index) =>
        statements[index].all<Record<string, unknown>>().then(
          (one) => read(rule, one.results),
          (error) => skipped(rule, error),
        ),
      ),
    );
  }
  return rules.map((rule, index) => read(rule, results[index].results));
}
