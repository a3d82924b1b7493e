/** Access to a record granted to other users (acsr): who may read it besides its owner. */

/** Grants these users access to the record; granting twice changes nothing. One statement per user, in one batch. */
export async function grantRecordAccess(db: D1Database, serviceId: string, recordId: string, userIds: readonly string[], now: number): Promise<void> {
  await db.batch(
    userIds.map((userId) =>
      db
        .prepare('INSERT INTO record_grants (service_id, record_id, user_id, created) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
        .bind(serviceId, recordId, userId, now),
    ),
  );
}

/** A user may access a record they own or were granted (acsr). */
export async function hasRecordAccess(db: D1Database, serviceId: string, recordId: string, userId: string): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS ok FROM records WHERE service_id = ?1 AND record_id = ?2 AND user_id = ?3
       UNION ALL SELECT 1 FROM record_grants WHERE service_id = ?1 AND record_id = ?2 AND user_id = ?3 LIMIT 1`,
    )
    .bind(serviceId, recordId, userId)
    .first();
  return row !== null;
}
