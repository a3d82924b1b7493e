/**
 * Read your own writes (issue 24, item 5): the caller's history has every request from the moment its
 * dispatch answered (the object writes its row as it stores or sends it), but a queued request's later
 * changes reach the history table through the object's outbox a moment later. A listing therefore takes
 * the current state of the rows whose history state may trail it from the object's live requests, and
 * only for those rows.
 */
import { mapWithin, OPEN_CONNECTIONS } from '../platform/open-connections';
import type { HistoryOwner } from './history';
import type { ForwardQueueStore, HistoryPlace, LiveAddress, LiveState } from './queue-store';
import type { ForwardRecord } from './record';

/** The caller's queue object, as far as a listing needs it. */
export type LiveLookup = (owner: HistoryOwner) => Pick<ForwardQueueStore, 'current'>;

/** Objects asked at once by one listing (an invocation opens at most 6 connections). */
const CONCURRENT_LOOKUPS = OPEN_CONNECTIONS;
/** Callers asked per page at most (a listing runs in one caller's object since issue 34: one caller). */
const MAX_CALLERS_ASKED = 30;

export const isUnresolved = (status: string) => status === 'pending' || status === 'running';

/**
 * A row D1 may hold behind its object: a queued request not settled, or a streamed one (its object keeps
 * it until it expires, and a finalize, also one replacing a version D1 has, reaches D1 through the outbox).
 */
export const mayTrail = (record: ForwardRecord) => record.queue_name !== null && (isUnresolved(record.status) || record.stream === true);

/** Whether the row holds a finalized version of a streamed request (its body inline, waiting, or in a segment). */
const finalizedInD1 = (record: ForwardRecord) =>
  record.stream === true && (record.response_body !== undefined || record.side_texts?.[3] === true || record.compact_texts?.[3] === true);

/** The D1 row brought up to the object's state (what the caller sent never changes, so D1's copy is kept). */
export const withLive = (kept: ForwardRecord, live: LiveState): ForwardRecord => ({
  ...live,
  ...(kept.side_texts !== undefined ? { side_texts: kept.side_texts } : {}),
  // A row whose bodies moved to a segment: its request text, in a compact listing, is only there.
  ...(kept.side_texts === undefined && kept.compact_texts !== undefined ? { side_texts: kept.compact_texts } : {}),
  ...(kept.request_body !== undefined ? { request_body: kept.request_body } : {}),
  ...(kept.request_headers !== undefined ? { request_headers: kept.request_headers } : {}),
});

const addressOf = (record: ForwardRecord): LiveAddress => ({
  method: record.method,
  url: record.url,
  id: record.id,
  ...(finalizedInD1(record) ? { finalized_at: record.updated } : {}),
});

/**
 * Each row as it is now: the object's state where D1 may trail it; null for a request its object no longer
 * holds while D1 still says it is unresolved, unless D1 settled it meanwhile (`reread`): it was removed.
 */
export async function freshen(
  places: readonly HistoryPlace[],
  live: LiveLookup,
  reread: (place: HistoryPlace) => Promise<ForwardRecord | null>,
): Promise<Array<ForwardRecord | null>> {
  const out: Array<ForwardRecord | null> = places.map((place) => place.record);
  const byCaller = new Map<string, number[]>();
  places.forEach((place, i) => {
    if (!mayTrail(place.record)) return;
    const at = byCaller.get(place.owner.callerKey) ?? [];
    at.push(i);
    byCaller.set(place.owner.callerKey, at);
  });
  // One object call per caller, then its rows D1 is read again for one at a time: within the 6 connections.
  await mapWithin([...byCaller.values()].slice(0, MAX_CALLERS_ASKED), CONCURRENT_LOOKUPS, async (at) => {
    const states = await live(places[at[0]].owner).current(at.map((i) => addressOf(places[i].record)));
    await mapWithin(at, 1, async (i, k) => {
      const state = states[k];
      const kept = places[i].record;
      if (state === 'unchanged') return;
      if (state) out[i] = withLive(kept, state);
      else if (isUnresolved(kept.status)) {
        const now = await reread(places[i]);
        out[i] = now && !isUnresolved(now.status) ? now : null;
      }
    });
  });
  return out;
}

/**
 * Up to `count` rows after `after` that are still there and pass `keep` once fresh: D1 is read again
 * after the last row read while rows fell away, so a page stays full while more remain.
 */
export async function fillPage<P, R>(
  after: P | null,
  count: number,
  read: (after: P | null, count: number) => Promise<R[]>,
  position: (row: R) => P,
  fresh: (rows: R[]) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = [];
  let from = after;
  for (;;) {
    const rows = await read(from, count);
    out.push(...(await fresh(rows)));
    if (out.length >= count || rows.length < count) return out.slice(0, count);
    from = position(rows[rows.length - 1]);
  }
}

/** A status filter also reads the unresolved rows (D1's status may trail); `keep` judges them once fresh. */
export const STATUS_FILTER_SQL = "(status = ? OR (queue_name IS NOT NULL AND status IN ('pending', 'running')))";
