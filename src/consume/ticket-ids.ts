/**
 * The ticket ids of each project, kept in this isolate (FreshIds) so a consumption of a ticket that does
 * not exist calls no Durable Object: a miss waits for the directory (D1 `tickets`) to be read again, at
 * most once a second per project, so a ticket registered through another isolate is still found.
 */
import type { Env } from '../env';
import { FreshIds, type IdsRead } from './fresh-ids';

/** A project with more tickets than this is not held: each of its consumptions asks the ticket's object, as before. */
const MAX_PER_PROJECT = 100_000;
/** Ids held in the isolate, all projects together (about 10 MB at most); past it the sets start over. */
const MAX_IN_ISOLATE = 300_000;
/** A registration's `updated` is taken before it is written (and on another isolate's clock): a delta reads this far back. */
const DELTA_MARGIN_MS = 60_000;

const sets = new Map<string, FreshIds>();

async function readIds(env: Env, serviceId: string, full: boolean, since: number): Promise<IdsRead> {
  const query = full
    ? env.DB.prepare('SELECT ticket_id FROM tickets WHERE service_id = ? LIMIT ?').bind(serviceId, MAX_PER_PROJECT + 1)
    : env.DB.prepare('SELECT ticket_id FROM tickets WHERE service_id = ? AND updated >= ? LIMIT ?').bind(
        serviceId,
        since - DELTA_MARGIN_MS,
        MAX_PER_PROJECT + 1,
      );
  const { results } = await query.all<{ ticket_id: string }>();
  const held = sets.get(serviceId)?.size ?? 0;
  return { ids: results.map((row) => row.ticket_id), overflow: results.length > MAX_PER_PROJECT || held + results.length > MAX_PER_PROJECT };
}

function setOf(env: Env, serviceId: string): FreshIds {
  let set = sets.get(serviceId);
  if (!set) {
    const held = [...sets.values()].reduce((sum, one) => sum + one.size, 0);
    if (held >= MAX_IN_ISOLATE) sets.clear();
    set = new FreshIds({
      read: (full, since) => readIds(env, serviceId, full, since),
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    sets.set(serviceId, set);
  }
  return set;
}

/** False when the project has no such ticket (as of a directory read that started after `mark`). */
export const ticketMayExist = (env: Env, serviceId: string, ticketId: string, mark: number): Promise<boolean> => setOf(env, serviceId).has(ticketId, mark);

/** A ticket registered through this isolate is found here at once. */
export const noteTicket = (env: Env, serviceId: string, ticketId: string): void => setOf(env, serviceId).add(ticketId);

export { markNow } from './fresh-ids';
