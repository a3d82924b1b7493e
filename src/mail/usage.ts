/** 'YYYY-MM' of a time, UTC: the month mail is counted in. */
export const usageMonth = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** Adds sent mails to the project's count of the month. */
export async function countMail(db: D1Database, serviceId: string, now: number, sent: { mails?: number; newsletter_mails?: number }): Promise<void> {
  await db
    .prepare(
      `INSERT INTO mail_usage (service_id, month, mails, newsletter_mails) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (service_id, month) DO UPDATE SET mails = mails + ?3, newsletter_mails = newsletter_mails + ?4`,
    )
    .bind(serviceId, usageMonth(now), sent.mails ?? 0, sent.newsletter_mails ?? 0)
    .run();
}

export async function mailUsage(db: D1Database, serviceId: string, month: string): Promise<{ mails: number; newsletter_mails: number }> {
  const row = await db
    .prepare('SELECT mails, newsletter_mails FROM mail_usage WHERE service_id = ? AND month = ?')
    .bind(serviceId, month)
    .first<{ mails: number; newsletter_mails: number }>();
  return row ?? { mails: 0, newsletter_mails: 0 };
}
