import type { ActionRow } from '../actions/types';
import type { LogRow } from './log-row';

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
