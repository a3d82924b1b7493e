/**
 * Log rows written to D1 before the log moved into each ticket's object (and by a Worker version still
 * running the old export during a deploy): read a ticket's oldest rows in chunks so its object can take
 * them in, then delete them from D1.
 */
import type { ActionRow } from '../actions/types';
import type { LogRow } from './log-row';
import type { LogOutcome } from './listing-query';
import { bodyOf, classOf, listingRow } from './log-body';
import type { LogListingRow, LogPageQuery } from './log-rows';

interface LegacyRow {
  log_key: string;
  consume_id: string;
  user_id: string;
  signed: number;
  is_check: number;
  failed: number;
  code: string | null;
  timestamp: number;
  description: string;
  request: string | null;
  replay_of: string | null;
  actions: string;
}

const parseObject = (text: string | null): Record<string, unknown> | undefined => {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const ACTIONS_OF_ROW = `(SELECT json_group_array(json_object('seq', a.seq, 'path', a.path, 'act', a.act, 'detail', json(a.detail)))
            FROM (SELECT * FROM ticket_action_rows a WHERE a.service_id = l.service_id AND a.ticket_id = l.ticket_id AND a.consume_id = l.consume_id ORDER BY a.seq) a
         ) AS actions`;
const COLUMNS = 'l.log_key, l.consume_id, l.user_id, l.signed, l.is_check, l.failed, l.code, l.timestamp, l.description, l.request, l.replay_of';

/** The SQL condition on a ticket_logs row `l` that keeps one outcome (a dry run is 'check' whatever it judged). */
const OUTCOME_SQL: Record<LogOutcome, string> = {
  ok: 'AND l.is_check = 0 AND l.failed = 0',
  failed: 'AND l.is_check = 0 AND l.failed = 1',
  check: 'AND l.is_check = 1',
};

export type LegacyEntry = { row: LogRow; actions: ActionRow[] };

function toEntry(serviceId: string, ticketId: string, r: LegacyRow): LegacyEntry {
  return {
    row: {
      service_id: serviceId,
      ticket_id: ticketId,
      log_key: r.log_key,
      consume_id: r.consume_id,
      user_id: r.user_id,
      signed: r.signed === 1,
      is_check: r.is_check === 1,
      failed: r.failed === 1,
      code: r.code,
      timestamp: r.timestamp,
      description: parseObject(r.description) ?? {},
      ...(parseObject(r.request) ? { request: parseObject(r.request) as unknown as LogRow['request'] } : {}),
      ...(r.replay_of ? { replay_of: r.replay_of } : {}),
    },
    // A dry run has no action rows of its own: its consume_id may be shared by nothing else.
    actions: r.is_check === 1 ? [] : (JSON.parse(r.actions) as ActionRow[]),
  };
}

/** Up to `limit` of a ticket's oldest D1 log rows, each with its action rows. */
export async function readLegacyChunk(db: D1Database, serviceId: string, ticketId: string, limit: number): Promise<LegacyEntry[]> {
  const { results } = await db
    .prepare(`SELECT ${COLUMNS}, ${ACTIONS_OF_ROW} FROM ticket_logs l WHERE l.service_id = ? AND l.ticket_id = ? ORDER BY l.timestamp, l.log_key LIMIT ?`)
    .bind(serviceId, ticketId, limit)
    .all<LegacyRow>();
  return results.map((r) => toEntry(serviceId, ticketId, r));
}

/** One page of the D1 rows not yet taken in, in the listing's order (newest first), for a listing that reads both. */
export async function readLegacyPage(db: D1Database, serviceId: string, ticketId: string, query: LogPageQuery): Promise<LegacyEntry[]> {
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS}, ${ACTIONS_OF_ROW} FROM ticket_logs l
        WHERE l.service_id = ?1 AND l.ticket_id = ?2 AND l.timestamp BETWEEN ?3 AND ?4
          ${query.outcome ? OUTCOME_SQL[query.outcome] : ''}
          ${query.after ? 'AND (l.timestamp, l.log_key) < (?6, ?7)' : ''}
        ORDER BY l.timestamp DESC, l.log_key DESC
        LIMIT ?5`,
    )
    .bind(serviceId, ticketId, query.from, query.to, query.count, ...(query.after ? [query.after.t, query.after.k] : []))
    .all<LegacyRow>();
  return results.map((r) => toEntry(serviceId, ticketId, r));
}

/** The D1 rows of these log keys not yet taken in. */
export async function readLegacyKeys(db: D1Database, serviceId: string, ticketId: string, logKeys: string[]): Promise<LegacyEntry[]> {
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS}, ${ACTIONS_OF_ROW} FROM ticket_logs l WHERE l.service_id = ? AND l.ticket_id = ? AND l.log_key IN (SELECT value FROM json_each(?))`,
    )
    .bind(serviceId, ticketId, JSON.stringify(logKeys))
    .all<LegacyRow>();
  return results.map((r) => toEntry(serviceId, ticketId, r));
}

/** Deletes the given rows (and the action rows of their consumptions) from D1 once the object holds them. */
export function deleteLegacyStatements(
  db: D1Database,
  serviceId: string,
  ticketId: string,
  rows: { log_key: string; consume_id: string; is_check: boolean }[],
): D1PreparedStatement[] {
  const keys = JSON.stringify(rows.map((r) => r.log_key));
  const consumptions = JSON.stringify(rows.filter((r) => !r.is_check).map((r) => r.consume_id));
  return [
    db
      .prepare('DELETE FROM ticket_logs WHERE service_id = ? AND ticket_id = ? AND log_key IN (SELECT value FROM json_each(?))')
      .bind(serviceId, ticketId, keys),
    db
      .prepare('DELETE FROM ticket_action_rows WHERE service_id = ? AND ticket_id = ? AND consume_id IN (SELECT value FROM json_each(?))')
      .bind(serviceId, ticketId, consumptions),
  ];
}

/**
 * A page of the object's log merged with a page of D1's old rows, newest first, at most `count`: a row
 * moved meanwhile is in both reads and kept once (the object's copy).
 */
export function mergeLegacyPage(ticketId: string, rows: LogListingRow[], legacy: LegacyEntry[], count: number): LogListingRow[] {
  if (legacy.length === 0) return rows;
  const seen = new Set(rows.map((r) => r.log_key));
  const merged = [
    ...rows,
    ...legacy
      .filter((e) => !seen.has(e.row.log_key))
      .map((e) => listingRow(ticketId, { log_key: e.row.log_key, timestamp: e.row.timestamp, class: classOf(e.row) }, bodyOf(e.row, e.actions))),
  ];
  merged.sort((a, b) => b.timestamp - a.timestamp || (a.log_key < b.log_key ? 1 : a.log_key > b.log_key ? -1 : 0));
  return merged.slice(0, count);
}
