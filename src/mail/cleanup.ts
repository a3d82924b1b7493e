import type { Env, WorkMessage } from '../env';
import { MAIL_PREFIX, keyDay } from './bodies';
import { MAIL_LIFETIME_MS, expiredSql } from './lifetime';

/**
 * The daily cleanup of mail (the cron, continued by work-queue messages): expired outbox rows,
 * newsletter sends and their batches leave D1, then every R2 body whose expiry day has passed,
 * orphans included (a body stored before a row that was never written). One run is one
 * invocation's work: at most ROUND_TRIPS_PER_RUN × 4 D1 queries and R2_PAGES_PER_RUN × 2 R2 calls
 * (a list of ≤ 1,000 keys and one delete of them), well under the 50 queries of the Free plan.
 */

export const MAIL_CLEANUP_KIND = 'mail.cleanup';
/** Rows one DELETE removes. */
export const ROWS_PER_STATEMENT = 1_000;
/** D1 round trips (one batch of 4 DELETEs each) one run may spend. */
export const ROUND_TRIPS_PER_RUN = 5;
/** R2 list+delete pairs one run may spend; R2 deletes at most 1,000 keys per call. */
export const R2_PAGES_PER_RUN = 5;
const R2_PAGE = 1_000;

export interface CleanupMessage extends WorkMessage {
  kind: typeof MAIL_CLEANUP_KIND;
  now: number;
}

/**
 * The four DELETEs of one round trip; ?1 is the cleanup's time, ?2 the rows per statement. Outbox
 * rows with an expiry and rows from before 0014 (expires NULL) are two ranges of mail_outbox_by_expiry.
 */
function deleteStatements(db: D1Database, now: number): D1PreparedStatement[] {
  const sendExpired = expiredSql('?1', 's');
  return [
    `DELETE FROM mail_outbox WHERE rowid IN (SELECT rowid FROM mail_outbox WHERE expires <= ?1 LIMIT ?2)`,
    `DELETE FROM mail_outbox WHERE rowid IN (SELECT rowid FROM mail_outbox WHERE expires IS NULL AND created <= ?1 - ${MAIL_LIFETIME_MS} LIMIT ?2)`,
    `DELETE FROM newsletter_batches WHERE rowid IN (
       SELECT b.rowid FROM newsletter_sends s JOIN newsletter_batches b ON b.service_id = s.service_id AND b.send_id = s.send_id
        WHERE ${sendExpired} LIMIT ?2)`,
    `DELETE FROM newsletter_sends WHERE rowid IN (
       SELECT s.rowid FROM newsletter_sends s
        WHERE ${sendExpired} AND NOT EXISTS (SELECT 1 FROM newsletter_batches b WHERE b.service_id = s.service_id AND b.send_id = s.send_id)
        LIMIT ?2)`,
  ].map((sql) => db.prepare(sql).bind(now, ROWS_PER_STATEMENT));
}

export interface SweepResult {
  removed: number;
  /** Whether the budget ran out before everything expired was gone. */
  more: boolean;
}

/** Deletes expired mail rows, at most `roundTrips` batches of 4 statements. */
export async function sweepMailRows(db: D1Database, now: number, roundTrips = ROUND_TRIPS_PER_RUN): Promise<SweepResult> {
  let removed = 0;
  for (let trip = 0; trip < roundTrips; trip++) {
    const results = await db.batch(deleteStatements(db, now));
    removed += results.reduce((sum, result) => sum + result.meta.changes, 0);
    if (results.every((result) => result.meta.changes < ROWS_PER_STATEMENT)) return { removed, more: false };
  }
  return { removed, more: true };
}

/** Deletes the bodies of every day before today (UTC): their rows have all expired. */
export async function sweepMailBodies(bucket: R2Bucket, now: number, pages = R2_PAGES_PER_RUN): Promise<SweepResult> {
  const today = keyDay(now);
  const listed = await bucket.list({ prefix: MAIL_PREFIX, delimiter: '/' });
  const days = listed.delimitedPrefixes.filter((prefix) => prefix.slice(MAIL_PREFIX.length, -1) < today).sort();
  let removed = 0;
  let spent = 0;
  for (const day of days) {
    for (;;) {
      if (spent >= pages) return { removed, more: true };
      const page = await bucket.list({ prefix: day, limit: R2_PAGE });
      spent++;
      const keys = page.objects.map((object) => object.key);
      if (keys.length > 0) await bucket.delete(keys);
      removed += keys.length;
      if (!page.truncated) break;
    }
  }
  return { removed, more: listed.truncated };
}

/** One run of the cleanup at `now` (the cron's within a smaller share); what does not fit continues in a work-queue message. */
export async function runMailCleanup(
  env: Env,
  now: number,
  share = { roundTrips: ROUND_TRIPS_PER_RUN, pages: R2_PAGES_PER_RUN },
): Promise<{ rows: number; bodies: number; more: boolean }> {
  // Rows first: a body outlives the rows that read it.
  const rows = await sweepMailRows(env.DB, now, share.roundTrips);
  const bodies = await sweepMailBodies(env.BODIES, now, share.pages);
  const more = rows.more || bodies.more;
  if (more) {
    const message: CleanupMessage = { kind: MAIL_CLEANUP_KIND, now };
    await env.WORK_QUEUE.send(message);
  }
  return { rows: rows.removed, bodies: bodies.removed, more };
}

/** Work-queue consumer of a cleanup continuation. */
export async function mailCleanupJob(message: CleanupMessage, env: Env): Promise<void> {
  await runMailCleanup(env, message.now);
}
