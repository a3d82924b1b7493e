import type { Env, WorkMessage } from '../env';
import { deleteChunkStatements, mayHaveMore, type OldRowsScope } from './delete-rows';

export const CLEAR_LOG_KIND = 'ticket-log.clear';

/** D1 round trips one message may spend before it hands the rest to a fresh message. */
const ROUND_TRIPS_PER_MESSAGE = 20;

/**
 * A consumption made just before the clear reaches D1 from its TicketDO's outbox up to
 * LOG_EXPORT_DELAY_MS (200 ms) later, more when an export is retried. A clear of rows this recent is
 * run once more SWEEP_DELAY_SECONDS after it, so such a row is cleared too.
 */
const RECENT_MS = 60_000;
export const SWEEP_DELAY_SECONDS = 5;

export interface ClearLogMessage extends WorkMessage {
  kind: typeof CLEAR_LOG_KIND;
  service_id: string;
  ticket_id: string;
  before: number;
  /** Set on the one later run that catches rows exported after the first (see RECENT_MS). */
  sweep?: boolean;
}

const isClearLogMessage = (m: WorkMessage): m is ClearLogMessage =>
  typeof m.service_id === 'string' && typeof m.ticket_id === 'string' && typeof m.before === 'number' && Number.isFinite(m.before);

/**
 * Deletes in chunks until nothing older than `before` is left, or hands the rest to a new message.
 * Idempotent: a repeated message deletes by the same rule and finds less (or nothing) to delete.
 */
export async function clearLogJob(message: WorkMessage, env: Env): Promise<void> {
  if (!isClearLogMessage(message)) {
    console.error('malformed clear-log message dropped');
    return;
  }
  if (await clearLogChunks(env.DB, message, ROUND_TRIPS_PER_MESSAGE)) await env.WORK_QUEUE.send(message);
  else if (!message.sweep && Date.now() - message.before < RECENT_MS) {
    await env.WORK_QUEUE.send({ ...message, sweep: true }, { delaySeconds: SWEEP_DELAY_SECONDS });
  }
}

/** Runs up to `roundTrips` chunk deletions; true when rows may remain. */
export async function clearLogChunks(db: D1Database, scope: OldRowsScope, roundTrips: number): Promise<boolean> {
  for (let trip = 0; trip < roundTrips; trip++) {
    const results = await db.batch(deleteChunkStatements(db, scope));
    if (!mayHaveMore(results, 0)) return false;
  }
  return true;
}
