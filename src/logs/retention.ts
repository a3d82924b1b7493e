import type { Env, WorkMessage } from '../env';
import type { Plan } from '../platform/types';
import { deleteChunkStatements, mayHaveMore } from './delete-rows';

export const RETENTION_KIND = 'ticket-log.retention';

const DAY_MS = 86_400_000;

/** Ticket log retention by plan (spec 8); null = kept until the owner clears it. */
export const RETENTION_DAYS: Record<Plan, number | null> = { free: 30, standard: 90, premium: null };

/** Projects handled per D1 round trip. */
const PROJECTS_PER_PAGE = 50;
/** D1 round trips one run (the cron, or one continuation message) may spend. */
const ROUND_TRIPS_PER_RUN = 25;

/** Log rows of a project on `plan` older than this are deleted at `now`; null = never. */
export function retentionCutoff(plan: string, now: number): number | null {
  const days = (RETENTION_DAYS as Record<string, number | null | undefined>)[plan];
  return typeof days === 'number' ? now - days * DAY_MS : null;
}

const PLANS_WITH_RETENTION = JSON.stringify(Object.entries(RETENTION_DAYS).filter(([, days]) => days !== null).map(([plan]) => plan));

/**
 * One bounded pass of the retention sweep over projects with service_id > `after`, cut off at `now`.
 * Returns the service_id to resume after, or null when every project is done.
 */
export async function sweepRetention(db: D1Database, now: number, after: string, roundTrips = ROUND_TRIPS_PER_RUN): Promise<string | null> {
  let cursor = after;
  let trips = 0;
  for (;;) {
    if (trips >= roundTrips) return cursor;
    const { results: projects } = await db
      .prepare(
        `SELECT service_id, plan FROM projects
          WHERE service_id > ? AND plan IN (SELECT value FROM json_each(?)) ORDER BY service_id LIMIT ?`,
      )
      .bind(cursor, PLANS_WITH_RETENTION, PROJECTS_PER_PAGE)
      .all<{ service_id: string; plan: string }>();
    trips++;
    if (projects.length === 0) return null;
    let pending = projects.flatMap((p) => {
      const before = retentionCutoff(p.plan, now);
      return before === null ? [] : [{ service_id: p.service_id, before }];
    });
    while (pending.length > 0) {
      // Out of budget mid-page: resume at this page; deleting again by the same rule is harmless.
      if (trips >= roundTrips) return cursor;
      const results = await db.batch(pending.flatMap((scope) => deleteChunkStatements(db, scope)));
      trips++;
      pending = pending.filter((_, index) => mayHaveMore(results, index));
    }
    cursor = projects[projects.length - 1].service_id;
  }
}

export interface RetentionMessage extends WorkMessage {
  kind: typeof RETENTION_KIND;
  now: number;
  after: string;
}

/** Runs the sweep from `after`; what does not fit in one run continues in a work-queue message. */
export async function runRetention(env: Env, now: number, after = ''): Promise<void> {
  const next = await sweepRetention(env.DB, now, after);
  if (next !== null) {
    const message: RetentionMessage = { kind: RETENTION_KIND, now, after: next };
    await env.WORK_QUEUE.send(message);
  }
}

const isRetentionMessage = (m: WorkMessage): m is RetentionMessage =>
  typeof m.now === 'number' && Number.isFinite(m.now) && typeof m.after === 'string';

/** Work-queue consumer of a retention continuation. */
export async function retentionJob(message: WorkMessage, env: Env): Promise<void> {
  if (!isRetentionMessage(message)) {
    console.error('malformed retention message dropped');
    return;
  }
  await runRetention(env, message.now, message.after);
}
