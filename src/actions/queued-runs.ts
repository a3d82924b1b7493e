/** Metering of queued ticket runs (runs that go on after resp), per project per month. */
import { QUEUED_RUN_QUOTA } from '../limits';

/** The calendar month (UTC) a time falls in, as 'YYYY-MM'. */
export const monthOf = (now: number): string => new Date(now).toISOString().slice(0, 7);

/** The plan's monthly quota; null = unlimited. An unknown plan gets the free quota. */
const queuedRunQuota = (plan: string): number | null => (Object.hasOwn(QUEUED_RUN_QUOTA, plan) ? QUEUED_RUN_QUOTA[plan] : QUEUED_RUN_QUOTA.free);

/**
 * Counts one queued run of the project this month, unless that would pass the plan's quota: one
 * statement, so concurrent runs of every ticket of the project never pass it. False = quota used up.
 */
export async function meterQueuedRun(db: D1Database, serviceId: string, plan: string, now: number): Promise<boolean> {
  const quota = queuedRunQuota(plan);
  if (quota !== null && quota <= 0) return false;
  const row = await db
    .prepare(
      `INSERT INTO usage_monthly (service_id, month, queued_runs) VALUES (?1, ?2, 1)
       ON CONFLICT (service_id, month) DO UPDATE SET queued_runs = queued_runs + 1 WHERE ?3 IS NULL OR queued_runs < ?3
       RETURNING queued_runs`,
    )
    .bind(serviceId, monthOf(now), quota)
    .first<{ queued_runs: number }>();
  return row !== null;
}
