/**
 * The paused destinations of a project (extension, docs/api.md "Pausing a failing destination"), as D1's
 * `destination_circuits` holds them (migration 0022): each caller's object (and each ticket's object, for its
 * runs with a retry schedule, under ticketCallerKey) replaces its rows when
 * one of its circuits pauses or lets go (a job of its own, off the request path); the owner's listing and an
 * alert rule read them by project.
 */
import type { PausedDestinations } from '../../schemas/forward-rules';
import type { PausedDestination } from '../outbound/circuit';
import type { HistoryOwner } from './history';
import { callerName } from './owner-history';

/** The most paused destinations a caller's object reports (the longest paused first). */
export const MAX_REPORTED_PER_CALLER = 50;
/** The most the owner's listing answers for a project (the longest paused first). */
const MAX_LISTED = 200;

interface ReportedRow {
  caller_key: string;
  origin: string;
  state: 'open' | 'half-open';
  since: number;
  failures: number;
  probe_at: number;
}

/** Replaces the caller's reported rows with its paused destinations, in one batch. */
export async function reportPaused(db: D1Database, owner: HistoryOwner, paused: readonly PausedDestination[], now: number): Promise<void> {
  const { serviceId, callerKey } = owner;
  const insert = db.prepare(
    `INSERT INTO destination_circuits (service_id, caller_key, origin, state, since, failures, probe_at, reported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  await db.batch([
    db.prepare('DELETE FROM destination_circuits WHERE service_id = ? AND caller_key = ?').bind(serviceId, callerKey),
    ...paused.map(({ origin, circuit }) =>
      insert.bind(
        serviceId,
        callerKey,
        origin,
        circuit.state,
        circuit.since,
        circuit.failures,
        circuit.state === 'open' ? circuit.probe_at : circuit.probe_until,
        now,
      ),
    ),
  ]);
}

/** A ticket's object reports its circuits (runs with a retry schedule) under this key: no forwarding caller's key starts so. */
export const ticketCallerKey = (ticketId: string): string => `ticket:${ticketId}`;

/** A listing item's holder: the forwarding caller, or the ticket whose runs it holds. */
function holderOf(callerKey: string): { caller: string } | { ticket: string } {
  const ticket = ticketCallerKey('');
  return callerKey.startsWith(ticket) ? { ticket: callerKey.slice(ticket.length) } : { caller: callerName(callerKey) };
}

/** The project's paused destinations, longest paused first. */
export async function pausedDestinations(db: D1Database, serviceId: string): Promise<PausedDestinations['list']> {
  const { results } = await db
    .prepare('SELECT caller_key, origin, state, since, failures, probe_at FROM destination_circuits WHERE service_id = ? ORDER BY since, origin LIMIT ?')
    .bind(serviceId, MAX_LISTED)
    .all<ReportedRow>();
  return results.map((row) => ({
    origin: row.origin,
    ...holderOf(row.caller_key),
    state: row.state,
    since: row.since,
    failures: row.failures,
    next_probe_at: row.probe_at,
  }));
}
