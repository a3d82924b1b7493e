/**
 * The owner's view of the forwarding history (issue 15), as each caller's object answers it: the caller's
 * requests filtered as spec 4.3's history plus the caller and a time range, newest first; one request in
 * full (owner-fan-out.ts asks the callers). The caller is named as the owner can read it: a user id,
 * `visitor:<hash>` (never an address) or `owner:<owner id>`.
 */
import type { OwnerForwardQuery } from '../../schemas/forward-owner';
import { fullRequestId, type RequestAddress, type RequestHistory } from '../../schemas/forward-rules';
import type { HistoryDb } from './history-db';
import { COLUMNS, COMPACT_COLUMNS, findHistory, type HistoryOwner, type HistoryRow, recordOf } from './history';
import { loadBodies } from './history-segments';
import { fillPage, freshen, type LiveLookup, STATUS_FILTER_SQL } from './live-history';
import type { HistoryPlace, OwnerAddress, StreamText } from './queue-store';
import { historyItemOf, type ForwardRecord } from './record';
import { searchFilterParts } from './forward-search';

/** caller_key ('u:', 'v:', 'o:') as the owner's view names it. */
export function callerName(callerKey: string): string {
  const rest = callerKey.slice(2);
  if (callerKey.startsWith('v:')) return `visitor:${rest}`;
  if (callerKey.startsWith('o:')) return `owner:${rest}`;
  return rest;
}

/** The caller filter back to a caller_key. */
export function callerKeyOf(name: string): string {
  if (name.startsWith('visitor:')) return `v:${name.slice('visitor:'.length)}`;
  if (name.startsWith('owner:')) return `o:${name.slice('owner:'.length)}`;
  return `u:${name}`;
}

export type OwnerHistoryItem = RequestHistory & { caller: string };

interface OwnerRow extends HistoryRow {
  caller_key: string;
}

/** Every filter of the query as SQL (applied in the read, so pages are full while more remain). */
export function ownerFilter(query: OwnerForwardQuery): { sql: string; binds: unknown[] } {
  const parts: Array<[string, unknown[]]> = [];
  if (query.url !== undefined) parts.push(['url = ?', [query.url]]);
  if (query.method !== undefined) parts.push(['method = ?', [query.method]]);
  if (query.caller !== undefined) parts.push(['caller_key = ?', [callerKeyOf(query.caller)]]);
  if (query.queue !== undefined) {
    parts.push(query.queue_exact ? ['queue_name = ?', [query.queue]] : ['substr(queue_name, 1, length(?)) = ?', [query.queue, query.queue]]);
  }
  if (query.queue_exclude !== undefined) parts.push(['(queue_name IS NULL OR queue_name <> ?)', [query.queue_exclude]]);
  if (query.status !== undefined) parts.push([STATUS_FILTER_SQL, [query.status]]);
  if (query.stream !== undefined) parts.push(['stream = ?', [query.stream ? 1 : 0]]);
  if (query.from !== undefined) parts.push(['created >= ?', [query.from]]);
  if (query.to !== undefined) parts.push(['created <= ?', [query.to]]);
  if (query.dead_letter !== undefined) parts.push(query.dead_letter === 'any' ? ['dead_letter IS NOT NULL', []] : ['dead_letter = ?', [query.dead_letter]]);
  if (query.search !== undefined) parts.push(...searchFilterParts(query.search));
  return { sql: parts.map(([sql]) => ` AND ${sql}`).join(''), binds: parts.flatMap(([, binds]) => binds) };
}

/**
 * Up to `count` of the caller's requests after the id `after` that pass the owner's filters, newest first,
 * each as it is now: run by each caller's object over its own history (owner-fan-out.ts merges them).
 */
export function ownerRows(
  db: HistoryDb,
  bodies: R2Bucket,
  owner: HistoryOwner,
  query: OwnerForwardQuery,
  after: string | null,
  count: number,
  now: number,
  live: LiveLookup,
): Promise<HistoryPlace[]> {
  const filter = ownerFilter(query);
  const read = async (from: string | null, n: number): Promise<HistoryPlace[]> => {
    const { results } = await db
      .prepare(
        `SELECT caller_key, ${query.compact === true ? COMPACT_COLUMNS : COLUMNS} FROM forward_requests AS f
         WHERE service_id = ? AND caller_key = ? AND (expires_at IS NULL OR expires_at > ?) ${from !== null ? 'AND id < ?' : ''}${filter.sql}
         ORDER BY id DESC, method, url LIMIT ?`,
      )
      .bind(owner.serviceId, owner.callerKey, now, ...(from !== null ? [from] : []), ...filter.binds, n)
      .all<OwnerRow>();
    const places = results.map((row) => ({ owner, record: recordOf(row) }));
    // A compact listing shows the texts the row keeps: no body is read.
    if (query.compact !== true)
      await loadBodies(
        bodies,
        places.map((place) => place.record),
      );
    return places;
  };
  return fillPage(
    after,
    count,
    read,
    (place) => place.record.id,
    (places) => freshPlaces(db, bodies, places, live, now, query.status),
  );
}

/** The places as they are now; removed ones, and with a status filter those whose status moved on, left out. */
async function freshPlaces(db: HistoryDb, bodies: R2Bucket, places: HistoryPlace[], live: LiveLookup, now: number, status?: string): Promise<HistoryPlace[]> {
  const records = await freshen(places, live, (place) => findHistory(db, bodies, place.owner, place.record, now));
  return places.flatMap((place, i) => {
    const record = records[i];
    return record && (status === undefined || record.status === status) ? [{ owner: place.owner, record }] : [];
  });
}

/** The owner's one request, asked of one caller's object: by its public id, narrowed by method and url when the full id gave them. */
export async function findOwnerHistory(
  db: HistoryDb,
  bodies: R2Bucket,
  owner: HistoryOwner,
  address: OwnerAddress,
  now: number,
  live: LiveLookup,
): Promise<HistoryPlace | null> {
  const narrow = address.method !== undefined && address.url !== undefined;
  const row = await db
    .prepare(
      `SELECT caller_key, ${COLUMNS} FROM forward_requests AS f
       WHERE service_id = ? AND caller_key = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)${narrow ? ' AND method = ? AND url = ?' : ''}
       LIMIT 1`,
    )
    .bind(owner.serviceId, owner.callerKey, address.id, now, ...(narrow ? [address.method, address.url] : []))
    .first<OwnerRow>();
  if (!row) return null;
  const record = recordOf(row);
  await loadBodies(bodies, [record]);
  return (await freshPlaces(db, bodies, [{ owner, record }], live, now))[0] ?? null;
}

/** A request in full, as the owner's view answers it. */
export interface OwnerRequestView extends OwnerHistoryItem {
  full_id: string;
  /** The headers as written ($CLIENT_SECRET in place); null for a request kept before they were. */
  request_headers: Record<string, string> | null;
  /** For a streamed request that is not finalized: its stored pieces joined, or null once none are kept. */
  stream_text?: StreamText | null;
  finalized?: boolean;
}

export function ownerRequestView(owner: HistoryOwner, record: ForwardRecord, streamText: StreamText | null): OwnerRequestView {
  const item = historyItemOf(record, false);
  const finalized = record.stream === true && record.response_body !== undefined;
  return {
    caller: callerName(owner.callerKey),
    full_id: fullRequestId(addressOfRecord(record)),
    ...item,
    request_headers: record.request_headers === undefined ? null : (JSON.parse(record.request_headers) as Record<string, string>),
    ...(record.stream ? { finalized, stream_text: finalized ? null : streamText } : {}),
  };
}

export const addressOfRecord = (record: ForwardRecord): RequestAddress => ({ method: record.method, url: record.url, id: record.id });
