/**
 * What each part of a project stores, as the part reports it (D1 `project_storage`, migration 0015):
 * one row per ticket log, written by the ticket's object when a segment is packed or a clear step ran,
 * never per consumption; and (issue 36 item 3) one row per forwarding caller with dead letters, written by
 * the caller's object when a dead letter was kept or swept. The consume path reads the sum with the project.
 */

/** The row of one ticket's log. */
export const ticketStoragePart = (ticketId: string): string => `ticket:${ticketId}`;

/** The project's stored bytes, as a subquery of a SELECT on `projects p`. */
export const STORED_BYTES_SQL = '(SELECT COALESCE(SUM(s.bytes), 0) FROM project_storage s WHERE s.service_id = p.service_id)';

/** Extension (issue 36 item 3): the row of one forwarding caller's dead letters (its caller_key). */
export const deadLetterStoragePart = (callerKey: string): string => `forward-dead-letters:${callerKey}`;

/** Records what a ticket's log holds now; a report older than the stored one changes nothing. */
export function reportTicketStorage(db: D1Database, serviceId: string, ticketId: string, bytes: number, now: number): Promise<void> {
  return reportStorage(db, serviceId, ticketStoragePart(ticketId), bytes, now);
}

/** Records what a part holds now; a report older than the stored one changes nothing. */
export async function reportStorage(db: D1Database, serviceId: string, part: string, bytes: number, now: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO project_storage (service_id, part, bytes, updated) VALUES (?, ?, ?, ?)
       ON CONFLICT (service_id, part) DO UPDATE SET bytes = excluded.bytes, updated = excluded.updated WHERE excluded.updated >= project_storage.updated`,
    )
    .bind(serviceId, part, bytes, now)
    .run();
}
