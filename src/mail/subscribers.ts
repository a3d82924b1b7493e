/** Subscribers of newsletter groups (the subscribers table of 0001_platform.sql), keyed by group key and address. */

export interface Subscriber {
  email: string;
  user_id?: string;
  created: number;
}

interface SubscriberRow {
  email: string;
  user_id: string | null;
  created: number;
}

const toSubscriber = (row: SubscriberRow): Subscriber => ({
  email: row.email,
  ...(row.user_id !== null ? { user_id: row.user_id } : {}),
  created: row.created,
});

/** Adds a subscriber, or changes the user id of one; `created` survives. */
export async function putSubscriber(
  db: D1Database,
  serviceId: string,
  groupKey: string,
  email: string,
  userId: string | null,
  now: number,
): Promise<Subscriber> {
  const row = await db
    .prepare(
      `INSERT INTO subscribers (service_id, grp, email, user_id, created) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (service_id, grp, email) DO UPDATE SET user_id = excluded.user_id
       RETURNING email, user_id, created`,
    )
    .bind(serviceId, groupKey, email, userId, now)
    .first<SubscriberRow>();
  return toSubscriber(row as SubscriberRow);
}

export async function deleteSubscriber(db: D1Database, serviceId: string, groupKey: string, email: string): Promise<boolean> {
  const result = await db.prepare('DELETE FROM subscribers WHERE service_id = ? AND grp = ? AND email = ?').bind(serviceId, groupKey, email).run();
  return result.meta.changes > 0;
}

/** Subscribers of a group in address order, after `after` (exclusive). */
export async function listSubscribers(db: D1Database, serviceId: string, groupKey: string, after: string | null, limit: number): Promise<Subscriber[]> {
  const { results } = await db
    .prepare(`SELECT email, user_id, created FROM subscribers WHERE service_id = ?1 AND grp = ?2 AND email > ?3 ORDER BY email LIMIT ?4`)
    .bind(serviceId, groupKey, after ?? '', limit)
    .all<SubscriberRow>();
  return results.map(toSubscriber);
}
