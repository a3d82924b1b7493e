/**
 * Refusals (429) at a ticket, counted in the isolate and handed to the ticket's object at most once a
 * minute per ticket (docs/decisions.md, "Counting refusals without paying for them"): a refused request
 * calls no Durable Object and writes nothing on its own, except the first of a minute, which carries the
 * counts gathered since the last one. Counts are approximate: an isolate that ends loses its last minute's.
 */
const FLUSH_EVERY_MS = 60_000;
const MINUTE_MS = 60_000;
/** Tickets counted per isolate; past it the oldest is forgotten (with its unflushed counts). */
const MAX_TICKETS = 1_000;

type Pending = { flushedAt: number; minutes: Map<number, number> };
const pending = new Map<string, Pending>();

/** Counts one refusal at `ticket` (a key naming project and ticket); answers the counts to flush now, minute → count, when due. */
export function countRefusal(ticket: string, now: number): [number, number][] | undefined {
  let entry = pending.get(ticket);
  if (!entry) {
    if (pending.size >= MAX_TICKETS) pending.delete(pending.keys().next().value as string);
    entry = { flushedAt: -Infinity, minutes: new Map() };
    pending.set(ticket, entry);
  }
  const minute = Math.floor(now / MINUTE_MS);
  entry.minutes.set(minute, (entry.minutes.get(minute) ?? 0) + 1);
  if (now - entry.flushedAt < FLUSH_EVERY_MS) return undefined;
  entry.flushedAt = now;
  const counts = [...entry.minutes];
  entry.minutes.clear();
  return counts;
}
