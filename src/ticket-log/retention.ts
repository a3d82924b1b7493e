import type { Env, WorkMessage } from '../env';
import type { Plan } from '../platform/types';
import { ticketObjectName } from '../platform/object-stubs';
import { DELETE_CHUNK, deleteChunkStatements, mayHaveMore } from './delete-rows';

export const RETENTION_KIND = 'ticket-log.retention';

const DAY_MS = 86_400_000;

/** Ticket log retention by plan (spec 8); null = kept until the owner clears it. */
export const RETENTION_DAYS: Record<Plan, number | null> = { free: 30, standard: 90, premium: null };

/** Projects (and tickets) read per page. */
const PROJECTS_PER_PAGE = 50;
/**
 * D1 statements plus ticket-object calls one continuation message may spend: each statement of a batch
 * is one of the invocation's D1 queries, 50 on the Free plan (docs/limits.md). The cron spends less.
 */
export const STEPS_PER_RUN = 40;
/** The D1 statements deleting one project's old rows (two log tables and the per-user index). */
const STATEMENTS_PER_PROJECT = 3;

/** The days a plan keeps its log; null = until the owner clears it. */
export function retentionDays(plan: string): number | null {
  const days = (RETENTION_DAYS as Record<string, number | null | undefined>)[plan];
  return typeof days === 'number' ? days : null;
}

/** Log rows of a project on `plan` older than this are deleted at `now`; null = never. */
export function retentionCutoff(plan: string, now: number): number | null {
  const days = retentionDays(plan);
  return days === null ? null : now - days * DAY_MS;
}

const PLANS_WITH_RETENTION = JSON.stringify(
  Object.entries(RETENTION_DAYS)
    .filter(([, days]) => days !== null)
    .map(([plan]) => plan),
);

/** Where a sweep resumes: first the projects' D1 rows (by service_id), then each ticket's log object. */
type SweepCursor = { phase: 'd1'; after: string } | { phase: 'logs'; service_id: string; ticket_id: string };

const LOGS_PHASE = 'logs:';

function readCursor(text: string): SweepCursor {
  if (!text.startsWith(LOGS_PHASE)) return { phase: 'd1', after: text };
  const [service_id = '', ticket_id = ''] = text.slice(LOGS_PHASE.length).split('/');
  return { phase: 'logs', service_id, ticket_id };
}

const writeCursor = (cursor: SweepCursor): string => (cursor.phase === 'd1' ? cursor.after : `${LOGS_PHASE}${cursor.service_id}/${cursor.ticket_id}`);

/** Deletes, in each ticket's own log, what is older than its project's cutoff (the object works in steps). */
export type LogRetainer = (ticket: { service_id: string; ticket_id: string; plan: string }, before: number) => Promise<void>;

/**
 * One bounded pass of the retention sweep, cut off at `now`: the rows D1 still keeps per project (the
 * log rows written before the log moved into the tickets' objects, and the per-user index), then
 * every ticket's log object. Each D1 statement or object call spends one of `roundTrips`. Returns
 * the cursor to resume after, or null when everything is done.
 */
export async function sweepRetention(env: Env, now: number, after: string, roundTrips = STEPS_PER_RUN, retain?: LogRetainer): Promise<string | null> {
  const db = env.DB;
  let cursor = readCursor(after);
  let trips = 0;
  while (cursor.phase === 'd1') {
    if (trips >= roundTrips) return writeCursor(cursor);
    const { results: projects } = await db
      .prepare(
        `SELECT service_id, plan FROM projects
          WHERE service_id > ? AND plan IN (SELECT value FROM json_each(?)) ORDER BY service_id LIMIT ?`,
      )
      .bind(cursor.after, PLANS_WITH_RETENTION, PROJECTS_PER_PAGE)
      .all<{ service_id: string; plan: string }>();
    trips++;
    if (projects.length === 0) {
      cursor = { phase: 'logs', service_id: '', ticket_id: '' };
      break;
    }
    let pending = projects.flatMap((p) => {
      const before = retentionCutoff(p.plan, now);
      return before === null ? [] : [{ service_id: p.service_id, before }];
    });
    while (pending.length > 0) {
      const room = Math.floor((roundTrips - trips) / STATEMENTS_PER_PROJECT);
      // Out of budget mid-page: resume at the first project not done (the page is in service_id order).
      if (room < 1) return writeCursor(resumeBefore(cursor.after, projects, pending[0].service_id));
      const batch = pending.slice(0, room);
      const results = await db.batch(batch.flatMap((scope) => [...deleteChunkStatements(db, scope), deleteConsumedIndexStatement(db, scope)]));
      trips += STATEMENTS_PER_PROJECT * batch.length;
      const left = batch.filter(
        (_, index) =>
          mayHaveMore(
            results.filter((_, i) => i % 3 !== 2),
            index,
          ) || results[3 * index + 2].meta.changes >= DELETE_CHUNK,
      );
      pending = [...left, ...pending.slice(room)];
    }
    cursor = { phase: 'd1', after: projects[projects.length - 1].service_id };
  }
  for (;;) {
    if (trips >= roundTrips) return writeCursor(cursor);
    const { results: tickets }: D1Result<{ service_id: string; ticket_id: string; plan: string }> = await db
      .prepare(
        `SELECT t.service_id, t.ticket_id, p.plan FROM log_tickets t JOIN projects p ON p.service_id = t.service_id
          WHERE (t.service_id > ?1 OR (t.service_id = ?1 AND t.ticket_id > ?2)) AND p.plan IN (SELECT value FROM json_each(?3))
          ORDER BY t.service_id, t.ticket_id LIMIT ?4`,
      )
      .bind(cursor.service_id, cursor.ticket_id, PLANS_WITH_RETENTION, PROJECTS_PER_PAGE)
      .all<{ service_id: string; ticket_id: string; plan: string }>();
    trips++;
    if (tickets.length === 0) return null;
    for (const ticket of tickets) {
      if (trips >= roundTrips) return writeCursor(cursor);
      const before = retentionCutoff(ticket.plan, now);
      if (before !== null) await (retain ?? retainInObject(env))(ticket, before);
      trips++;
      cursor = { phase: 'logs', service_id: ticket.service_id, ticket_id: ticket.ticket_id };
    }
  }
}

/** Where a sweep resumes so that `first` is the next project read: past every project of the page before it. */
function resumeBefore(after: string, page: { service_id: string }[], first: string): SweepCursor {
  const index = page.findIndex((project) => project.service_id === first);
  return { phase: 'd1', after: index > 0 ? page[index - 1].service_id : after };
}

/** A ticket's object clears its log before the cutoff (one step now, the rest in its own alarm). */
const retainInObject =
  (env: Env): LogRetainer =>
  (ticket, before) =>
    env.TICKETS.get(env.TICKETS.idFromName(ticketObjectName(ticket.service_id, ticket.ticket_id))).clearLog(ticket, before);

/** The per-user index rows of a project older than the cutoff, one chunk. */
function deleteConsumedIndexStatement(db: D1Database, scope: { service_id: string; before: number }): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM user_consumptions WHERE (service_id, user_id, timestamp, ticket_id, log_key) IN
         (SELECT service_id, user_id, timestamp, ticket_id, log_key FROM user_consumptions WHERE service_id = ? AND timestamp < ? LIMIT ?)`,
    )
    .bind(scope.service_id, scope.before, DELETE_CHUNK);
}

export interface RetentionMessage extends WorkMessage {
  kind: typeof RETENTION_KIND;
  now: number;
  after: string;
}

/** Runs the sweep from `after` within `steps`; what does not fit continues in a work-queue message. */
export async function runRetention(env: Env, now: number, after = '', steps = STEPS_PER_RUN): Promise<void> {
  const next = await sweepRetention(env, now, after, steps);
  if (next !== null) {
    const message: RetentionMessage = { kind: RETENTION_KIND, now, after: next };
    await env.WORK_QUEUE.send(message);
  }
}

const isRetentionMessage = (m: WorkMessage): m is RetentionMessage => typeof m.now === 'number' && Number.isFinite(m.now) && typeof m.after === 'string';

/** Work-queue consumer of a retention continuation. */
export async function retentionJob(message: WorkMessage, env: Env): Promise<void> {
  if (!isRetentionMessage(message)) {
    console.error('malformed retention message dropped');
    return;
  }
  await runRetention(env, message.now, message.after);
}
