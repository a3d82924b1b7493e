import type { KeptRequest } from './kept-request';
import type { DatabaseResponse } from '../../schemas/listings';
import { type PageRequest, pageOf } from '../http/paging';
import {
  parseActionFacts,
  toActionListingRow,
  toConsumedRow,
  toOwnerLogRow,
  type ActionListingRow,
  type ConsumedRow,
  type OwnerLogRow,
  type StoredActionRow,
  type StoredLogRow,
} from './log-rows';
import type { LogOutcome, TimeRange } from './listing-query';

/** Where a page starts: the last row of the previous page (each listing has its own tag). */
type LogPosition = { v: 'log'; t: number; k: string };
type ActionPosition = { v: 'act'; s: number };
type ConsumedPosition = { v: 'con'; t: number; i: string; k: string };

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200;

const isLogPosition = (v: unknown): v is LogPosition => isRecord(v) && v.v === 'log' && isTime(v.t) && isKey(v.k);
const isActionPosition = (v: unknown): v is ActionPosition => isRecord(v) && v.v === 'act' && isTime(v.s);
const isConsumedPosition = (v: unknown): v is ConsumedPosition => isRecord(v) && v.v === 'con' && isTime(v.t) && isKey(v.i) && isKey(v.k);

type LogQueryRow = StoredLogRow & { action_facts: string | null; request: string | null; replay_of: string | null };

/** The SQL condition on a ticket_logs row `l` that keeps one outcome (a dry run is 'check' whatever it judged). */
const OUTCOME_SQL: Record<LogOutcome, string> = {
  ok: 'AND l.is_check = 0 AND l.failed = 0',
  failed: 'AND l.is_check = 0 AND l.failed = 1',
  check: 'AND l.is_check = 1',
};

/** The consumption log of one ticket (dry runs included unless `outcome` keeps one kind), newest first. */
export function listTicketLog(
  db: D1Database,
  serviceId: string,
  ticketId: string,
  range: TimeRange,
  request: PageRequest,
  outcome?: LogOutcome,
): Promise<DatabaseResponse<OwnerLogRow>> {
  return pageOf(request, {
    isPosition: isLogPosition,
    rows: async (after, count) => {
      const { results } = await db
        .prepare(
          `SELECT l.ticket_id, l.log_key, l.consume_id, l.user_id, l.is_check, l.failed, l.timestamp, l.description, l.request, l.replay_of,
             (SELECT json_group_array(json_object('path', a.path, 'attempts', json_extract(a.detail, '$.attempts'),
                      'retried', json_extract(a.detail, '$.retried'), 'warning', json_extract(a.detail, '$.warning')))
                FROM ticket_action_rows a
               WHERE a.service_id = l.service_id AND a.ticket_id = l.ticket_id AND a.consume_id = l.consume_id) AS action_facts
             FROM ticket_logs l
            WHERE l.service_id = ?1 AND l.ticket_id = ?2 AND l.timestamp BETWEEN ?3 AND ?4
              ${outcome ? OUTCOME_SQL[outcome] : ''}
              ${after ? 'AND (l.timestamp, l.log_key) < (?6, ?7)' : ''}
            ORDER BY l.timestamp DESC, l.log_key DESC
            LIMIT ?5`,
        )
        .bind(serviceId, ticketId, range.from, range.to, count, ...(after ? [after.t, after.k] : []))
        .all<LogQueryRow>();
      return results;
    },
    position: (row): LogPosition => ({ v: 'log', t: row.timestamp, k: row.log_key }),
    shape: (row) => toOwnerLogRow(row, parseActionFacts(row.action_facts), row),
  });
}

/** The action rows of one consumption, in the order they ran. */
export function listActionRows(
  db: D1Database,
  serviceId: string,
  ticketId: string,
  consumeId: string,
  range: TimeRange,
  request: PageRequest,
): Promise<DatabaseResponse<ActionListingRow>> {
  return pageOf(request, {
    isPosition: isActionPosition,
    rows: async (after, count) => {
      const { results } = await db
        .prepare(
          `SELECT ticket_id, consume_id, seq, path, act, detail, timestamp
             FROM ticket_action_rows
            WHERE service_id = ?1 AND ticket_id = ?2 AND consume_id = ?3 AND timestamp BETWEEN ?4 AND ?5 AND seq > ?6
            ORDER BY seq
            LIMIT ?7`,
        )
        .bind(serviceId, ticketId, consumeId, range.from, range.to, after?.s ?? -1, count)
        .all<StoredActionRow>();
      return results;
    },
    position: (row): ActionPosition => ({ v: 'act', s: row.seq }),
    shape: toActionListingRow,
  });
}

/** A user's own consumptions on the signed-in endpoint (optionally of one ticket), newest first. */
export function listConsumed(db: D1Database, serviceId: string, userId: string, ticketId: string | undefined, request: PageRequest): Promise<DatabaseResponse<ConsumedRow>> {
  return pageOf(request, {
    isPosition: isConsumedPosition,
    rows: async (after, count) => {
      const { results } = await db
        .prepare(
          `SELECT ticket_id, log_key, consume_id, user_id, is_check, failed, timestamp, description
             FROM ticket_logs
            WHERE service_id = ?1 AND user_id = ?2 AND signed = 1 AND is_check = 0
              AND (?4 IS NULL OR ticket_id = ?4)
              ${after ? 'AND (timestamp, ticket_id, log_key) < (?5, ?6, ?7)' : ''}
            ORDER BY timestamp DESC, ticket_id DESC, log_key DESC
            LIMIT ?3`,
        )
        .bind(serviceId, userId, count, ticketId ?? null, ...(after ? [after.t, after.i, after.k] : []))
        .all<StoredLogRow>();
      return results;
    },
    position: (row): ConsumedPosition => ({ v: 'con', t: row.timestamp, i: row.ticket_id, k: row.log_key }),
    shape: toConsumedRow,
  });
}

/** The request a consumption received, as its log row keeps it; undefined when there is no such row, null when nothing was kept. */
export async function keptRequestOf(db: D1Database, serviceId: string, ticketId: string, consumeId: string): Promise<KeptRequest | null | undefined> {
  const row = await db
    .prepare('SELECT request FROM ticket_logs WHERE service_id = ? AND ticket_id = ? AND log_key = ?')
    .bind(serviceId, ticketId, consumeId)
    .first<{ request: string | null }>();
  if (!row) return undefined;
  return row.request ? (JSON.parse(row.request) as KeptRequest) : null;
}
