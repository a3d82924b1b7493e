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

/** Idempotent: a repeated export writes the row once. */
export function consumedIndexStatement(db: D1Database, row: ConsumedIndexRow): D1PreparedStatement {
  return db
    .prepare('INSERT INTO user_consumptions (service_id, user_id, timestamp, ticket_id, log_key) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
    .bind(row.service_id, row.user_id, row.timestamp, row.ticket_id, row.log_key);
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
