/**
 * D1's index of signed-in consumptions (getConsumedTickets lists a user's across tickets): a small row
 * per consumption, written from each ticket's outbox; the bodies stay in the ticket's log.
 */

export interface ConsumedIndexRow {
  service_id: string;
  user_id: string;
  timestamp: number;
  ticket_id: string;
  log_key: string;
}

/**
 * The rows of one export in one statement (each statement is a D1 query of the invocation: the Free
 * plan allows 50). Idempotent: a repeated export writes each row once.
 */
export function consumedIndexStatement(db: D1Database, rows: ConsumedIndexRow[]): D1PreparedStatement {
  const tuples = rows.map((row) => [row.service_id, row.user_id, row.timestamp, row.ticket_id, row.log_key]);
  // WHERE true: SQLite reads an ON CONFLICT after a bare SELECT … FROM as a join's ON.
  return db
    .prepare(
      `INSERT INTO user_consumptions (service_id, user_id, timestamp, ticket_id, log_key)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
    )
    .bind(JSON.stringify(tuples));
}

/** Up to `count` of a user's signed-in consumptions (optionally of one ticket) after `after`, newest first. */
export async function consumedIndexPage(
  db: D1Database,
  serviceId: string,
  userId: string,
  ticketId: string | undefined,
  after: { t: number; i: string; k: string } | null,
  count: number,
): Promise<ConsumedIndexRow[]> {
  const { results } = await db
    .prepare(
      `SELECT service_id, user_id, timestamp, ticket_id, log_key FROM user_consumptions
        WHERE service_id = ?1 AND user_id = ?2 AND (?4 IS NULL OR ticket_id = ?4)
          ${after ? 'AND (timestamp, ticket_id, log_key) < (?5, ?6, ?7)' : ''}
        ORDER BY timestamp DESC, ticket_id DESC, log_key DESC
        LIMIT ?3`,
    )
    .bind(serviceId, userId, count, ticketId ?? null, ...(after ? [after.t, after.i, after.k] : []))
    .all<ConsumedIndexRow>();
  return results;
}
