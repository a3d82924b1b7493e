/**
 * How long the mail the service keeps lives: the local outbox's rows, newsletter sends and their
 * bodies leave MAIL_LIFETIME_DAYS after they were written (a newsletter's mails with their send).
 */
export const MAIL_LIFETIME_DAYS = 30;
export const MAIL_LIFETIME_MS = MAIL_LIFETIME_DAYS * 86_400_000;

/** When something written at `created` leaves. */
export const expiresAt = (created: number): number => created + MAIL_LIFETIME_MS;

/** Rows written before migration 0014 have no `expires`: they leave MAIL_LIFETIME_MS after `created`. */
export const effectiveExpiry = (row: { expires: number | null; created: number }): number => row.expires ?? expiresAt(row.created);

/**
 * SQL true for a row that has expired at ?now (bound as `nowParam`); `alias` qualifies the columns.
 * Two index ranges of (expires, created): rows with an expiry, and rows from before 0014.
 */
export function expiredSql(nowParam: string, alias = ''): string {
  const col = (name: string) => (alias ? `${alias}.${name}` : name);
  return `(${col('expires')} <= ${nowParam} OR (${col('expires')} IS NULL AND ${col('created')} <= ${nowParam} - ${MAIL_LIFETIME_MS}))`;
}

/** SQL true for a row still live at `nowParam` (the negation of expiredSql, NULL-safe). */
export const liveSql = (nowParam: string): string => `coalesce(expires, created + ${MAIL_LIFETIME_MS}) > ${nowParam}`;
