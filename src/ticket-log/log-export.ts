/**
 * What a TicketDO's outbox carries to D1: a signed-in consumption for the per-user index, or an entry
 * of the old shape (stored before the log moved into the object), written to D1's old log, which the
 * object's log takes in from there (legacy-log.ts).
 */
import type { ActionRow } from '../actions/types';
import { fitForLog, MAX_LOG_VALUE_CHARS } from '../bytes/log-size';
import type { ConsumedIndexRow } from './consumed-index';
import type { LogRow } from './log-row';

/**
 * The JSON of a log value; only when it is over the log limit are its parts cut to fit (a whole under
 * the limit has every part under it, so cutting would change nothing: one stringify in the usual case).
 */
function jsonWithin(value: unknown, fitted: () => unknown): string {
  const json = JSON.stringify(value);
  return json.length <= MAX_LOG_VALUE_CHARS ? json : JSON.stringify(fitted());
}

/** An outbox entry written before the log moved into the object: a log row and its action rows, for D1. */
export interface LogEntry {
  row: LogRow;
  actionRows: ActionRow[];
  /** The closing row of a run that went on after resp: it replaces the row logged earlier. */
  final: boolean;
}

/** What the outbox carries to D1: a signed-in consumption for the per-user index, or an entry of the old shape. */
export type LogExport = { consumed: ConsumedIndexRow } | LogEntry;

/** The stored text of an outbox entry; an old-shape entry's values cut to the log limit only when over it. */
export function encodeExport(value: LogExport): string {
  if ('consumed' in value) return JSON.stringify(value);
  const { row, actionRows, final } = value;
  return `{"row":${jsonWithin(row, () => ({ ...row, description: fitForLog(row.description) }))},"actionRows":${jsonWithin(actionRows, () =>
    actionRows.map((action) => ({ ...action, detail: fitForLog(action.detail) })),
  )},"final":${final}}`;
}

/** The D1 statements that write one outbox entry; ON CONFLICT DO NOTHING makes a repeat harmless. */
export function logStatements(db: D1Database, row: LogRow, actionRows: ActionRow[]): D1PreparedStatement[] {
  const statements = [
    db
      .prepare(
        `INSERT INTO ticket_logs (service_id, ticket_id, log_key, consume_id, user_id, signed, is_check, failed, code, timestamp, description, request, replay_of)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .bind(
        row.service_id,
        row.ticket_id,
        row.log_key,
        row.consume_id,
        row.user_id,
        row.signed ? 1 : 0,
        row.is_check ? 1 : 0,
        row.failed ? 1 : 0,
        row.code,
        row.timestamp,
        JSON.stringify(row.description),
        row.request ? JSON.stringify(row.request) : null,
        row.replay_of ?? null,
      ),
  ];
  for (const action of actionRows) {
    statements.push(
      db
        .prepare(
          `INSERT INTO ticket_action_rows (service_id, ticket_id, consume_id, seq, path, act, detail, timestamp)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .bind(row.service_id, row.ticket_id, row.consume_id, action.seq, action.path, action.act, JSON.stringify(action.detail), row.timestamp),
    );
  }
  return statements;
}

/** Writes the closing row over the one logged when the caller was answered (run after its insert). */
export function closingLogStatement(db: D1Database, row: LogRow): D1PreparedStatement {
  return db
    .prepare('UPDATE ticket_logs SET failed = ?, code = ?, description = ? WHERE service_id = ? AND ticket_id = ? AND log_key = ?')
    .bind(row.failed ? 1 : 0, row.code, JSON.stringify(row.description), row.service_id, row.ticket_id, row.log_key);
}
