/**
 * The owner's view across callers (issue 34 item 2): each caller's history is in its own object, and D1's
 * caller index (caller-index.ts) says which objects to ask. A page asks at most MAX_CALLERS_PER_PAGE
 * objects. Callers are walked in groups, newest first caller first; within a group the requests are merged
 * newest first, so a project with up to that many callers reads as one list newest first. A page that used
 * up its asks before it was full ends early and hands out where the next one resumes.
 */
import type { OwnerForwardQuery } from '../../schemas/forward-owner';
import type { DatabaseResponse } from '../../schemas/listings';
import { type PageRequest, pageOf } from '../wire/paging';
import { mapWithin, OPEN_CONNECTIONS } from '../platform/open-connections';
import { type CallerPlace, type CallerRow, callersInOrder, LAST_AT_SLACK_MS } from './caller-index';
import type { HistoryOwner } from './history';
import { callerKeyOf, callerName, type OwnerHistoryItem } from './owner-history';
import type { ForwardQueueStore, HistoryPlace, OwnerAddress } from './queue-store';
import { historyItemOf } from './record';
import { stampOf } from './ids';

/**
 * Objects one page asks at most: with the caller index's one D1 query, a page stays inside the Free plan's
 * 50 subrequests per invocation (each object call is one); the objects' own reads are their invocations'.
 */
export const MAX_CALLERS_PER_PAGE = 32;

type StoreOf = (owner: HistoryOwner) => Pick<ForwardQueueStore, 'ownerRows' | 'ownerFind'>;

/** A group of callers (first and last in the walk) and the id the page ended on in it (null: from its start). */
interface Position {
  g: [CallerPlace, CallerPlace];
  id: string | null;
}

const isPlace = (value: unknown): value is CallerPlace =>
  Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string' && value[1].length <= 200;

const isPosition = (value: unknown): value is Position => {
  if (typeof value !== 'object' || value === null) return false;
  const { g, id } = value as Record<string, unknown>;
  return Array.isArray(g) && g.length === 2 && isPlace(g[0]) && isPlace(g[1]) && (id === null || (typeof id === 'string' && id.length <= 64));
};

interface Row {
  place: HistoryPlace;
  position: Position;
}

const placeOf = (row: CallerRow): CallerPlace => [row.first_at, row.caller_key];
const newestFirst = (a: HistoryPlace, b: HistoryPlace) =>
  a.record.id < b.record.id ? 1 : a.record.id > b.record.id ? -1 : `${a.record.method} ${a.record.url}`.localeCompare(`${b.record.method} ${b.record.url}`);

/** The time filters as bounds on the callers worth asking. */
const activity = (query: OwnerForwardQuery) => ({
  ...(query.from !== undefined ? { activeSince: query.from } : {}),
  ...(query.to !== undefined ? { startedBy: query.to } : {}),
});

/** The project's requests, every caller's, newest first (see the module's comment), each as it is now. */
export function listOwnerHistory(
  db: D1Database,
  serviceId: string,
  query: OwnerForwardQuery,
  page: PageRequest,
  storeOf: StoreOf,
): Promise<DatabaseResponse<OwnerHistoryItem>> {
  let resume: Position | null = null;
  const ask = async (callers: CallerRow[], after: string | null, count: number) => {
    const pages = await mapWithin(callers, OPEN_CONNECTIONS, (row) => {
      const owner = { serviceId, callerKey: row.caller_key };
      return storeOf(owner).ownerRows(owner, query, after, count);
    });
    return pages.flat().sort(newestFirst).slice(0, count);
  };
  const rows = async (after: Position | null, count: number): Promise<Row[]> => {
    if (query.caller !== undefined) {
      // One caller: its object alone, no index read.
      const owner = { serviceId, callerKey: callerKeyOf(query.caller) };
      const group: [CallerPlace, CallerPlace] = [
        [0, owner.callerKey],
        [0, owner.callerKey],
      ];
      const places = await storeOf(owner).ownerRows(owner, query, after?.id ?? null, count);
      return places.map((place) => ({ place, position: { g: group, id: place.record.id } }));
    }
    const out: Row[] = [];
    let budget = MAX_CALLERS_PER_PAGE;
    let group = after
      ? await callersInOrder(db, serviceId, { from: after.g[0], through: after.g[1], ...activity(query) }, MAX_CALLERS_PER_PAGE)
      : await callersInOrder(db, serviceId, activity(query), budget);
    let from = after?.id ?? null;
    for (;;) {
      if (group.length === 0) return out;
      const bounds: [CallerPlace, CallerPlace] = [placeOf(group[0]), placeOf(group[group.length - 1])];
      const places = await ask(group, from, count - out.length);
      out.push(...places.map((place) => ({ place, position: { g: bounds, id: place.record.id } })));
      budget -= group.length;
      if (out.length >= count) return out;
      // This group is done: the next one starts after its last caller.
      const last = bounds[1];
      if (budget <= 0) {
        const next = await callersInOrder(db, serviceId, { after: last, ...activity(query) }, MAX_CALLERS_PER_PAGE);
        if (next.length > 0) resume = { g: [placeOf(next[0]), placeOf(next[next.length - 1])], id: null };
        return out;
      }
      group = await callersInOrder(db, serviceId, { after: last, ...activity(query) }, budget);
      from = null;
    }
  };
  return pageOf(page, {
    isPosition,
    rows,
    position: (row) => row.position,
    resumeAt: () => resume,
    shape: ({ place }) => ({ caller: callerName(place.owner.callerKey), ...historyItemOf(place.record, query.compact === true) }),
  });
}

/**
 * The owner's one request, whoever made it: asked of the callers that were active when its id was made
 * (its stamp), at most MAX_CALLERS_PER_PAGE of them, the most recently active first.
 */
export async function findOwnerRequest(db: D1Database, serviceId: string, address: OwnerAddress, storeOf: StoreOf): Promise<HistoryPlace | null> {
  const stamp = stampOf(address.id);
  if (stamp === null) return null;
  const { results } = await db
    .prepare(
      `SELECT caller_key, first_at, last_at FROM forward_callers WHERE service_id = ? AND first_at <= ? AND last_at >= ?
       ORDER BY last_at DESC LIMIT ?`,
    )
    .bind(serviceId, stamp + LAST_AT_SLACK_MS, stamp - LAST_AT_SLACK_MS, MAX_CALLERS_PER_PAGE)
    .all<CallerRow>();
  const found = await mapWithin(results, OPEN_CONNECTIONS, (row) => {
    const owner = { serviceId, callerKey: row.caller_key };
    return storeOf(owner).ownerFind(owner, address);
  });
  return found.find((place) => place !== null) ?? null;
}
