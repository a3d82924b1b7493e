/**
 * The history of forwarded requests (spec 2.8, 4.3 forwardRequestHistory), kept in each caller's
 * ForwardQueueDO since issue 34 (in D1 before: the SQL is D1's, history-db.ts): one row per request, written
 * by the object as it stores or sends it and by its outbox per change; read by polls of requests that left
 * the live queue, and listed newest first.
 */
import type { HistoryDb, HistoryStatement } from './history-db';
import type { ForwardHistoryQuery } from '../../schemas/forward';
import type { RequestAddress, RequestHistory } from '../../schemas/forward-rules';
import type { DatabaseResponse } from '../../schemas/listings';
import { type PageRequest, pageOf } from '../wire/paging';
import { historyExpiry } from './history-cleanup';
import { fillPage, freshen, type LiveLookup, STATUS_FILTER_SQL } from './live-history';
import { utf8Bytes } from '../../schemas/utf8';
import { INLINE_BODY_CHARS, loadBodies, placeAlone, type PlacedAlone } from './history-segments';
import type { DeadLetterReason } from '../../schemas/dead-letters';
import { type CompactTexts, COMPACT_PREFIX_CHARS, compactTextsOfPrefixes, type ForwardRecord, historyItemOf } from './record';

/** Whose history: the project and the caller (see ForwardCaller.key). */
export interface HistoryOwner {
  serviceId: string;
  callerKey: string;
}

export interface HistoryRow {
  id: string;
  method: string;
  url: string;
  queue_name: string | null;
  status: string;
  created: number;
  updated: number;
  executed: number | null;
  responded: number | null;
  status_code: number | null;
  request_body: string | null;
  response_body: string | null;
  error: string | null;
  expires_at: number | null;
  stream: number;
  request_headers: string | null;
  /** Extension (issue 36): JSON of the record's attempts. */
  attempts: string | null;
  /** Extension (issue 36 item 3): the dead letter's reason. */
  dead_letter: string | null;
  body_segment: string | null;
  body_at: number | null;
  body_len: number | null;
  compact: string | null;
  /** JSON [request_body, response_body, request_headers] from forward_bodies, while they wait there. */
  side_bodies: string | null;
  /** In a compact read instead: JSON [request prefix, whole?, response prefix, whole?] of those bodies (COMPACT_COLUMNS). */
  side_prefix?: string | null;
}

/** The columns a write sets (see entryValues). */
const WRITTEN_COLUMNS =
  'id, method, url, queue_name, status, created, updated, executed, responded, status_code, request_body, response_body, error, expires_at, stream, request_headers, attempts, dead_letter';
/** A row's bodies in forward_bodies (migration 0016), looked up only for a row not pointing at a segment. */
const SIDE_BODIES = `CASE WHEN f.body_segment IS NULL THEN (SELECT json_array(b.request_body, b.response_body, b.request_headers) FROM forward_bodies AS b
  WHERE b.service_id = f.service_id AND b.caller_key = f.caller_key AND b.method = f.method AND b.url = f.url AND b.id = f.id) END AS side_bodies`;
/**
 * The columns a read takes, from `forward_requests AS f`: the written ones, where moved bodies are
 * (history-segments.ts), and bodies waiting in their own table.
 */
export const COLUMNS = `${WRITTEN_COLUMNS}, body_segment, body_at, body_len, compact, ${SIDE_BODIES}`;
const prefixOf = (column: string) => `substr(b.${column}, 1, ${COMPACT_PREFIX_CHARS}), length(b.${column}) <= ${COMPACT_PREFIX_CHARS}`;
/**
 * The columns a compact listing reads: as COLUMNS, but of bodies waiting in forward_bodies only their first
 * characters (what a compact item shows), not up to 2 MB each; inline bodies are 200 characters at most.
 */
export const COMPACT_COLUMNS = `${WRITTEN_COLUMNS}, body_segment, body_at, body_len, compact, NULL AS side_bodies,
  CASE WHEN f.body_segment IS NULL THEN (SELECT json_array(${prefixOf('request_body')}, ${prefixOf('response_body')}) FROM forward_bodies AS b
  WHERE b.service_id = f.service_id AND b.caller_key = f.caller_key AND b.method = f.method AND b.url = f.url AND b.id = f.id) END AS side_prefix`;

export function recordOf(row: HistoryRow): ForwardRecord {
  const record: ForwardRecord = {
    id: row.id,
    method: row.method as ForwardRecord['method'],
    url: row.url,
    queue_name: row.queue_name,
    status: row.status as ForwardRecord['status'],
    created: row.created,
    updated: row.updated,
  };
  if (row.executed !== null) record.executed = row.executed;
  if (row.responded !== null) record.responded = row.responded;
  if (row.status_code !== null) record.status_code = row.status_code;
  if (row.request_body !== null) record.request_body = row.request_body;
  if (row.response_body !== null) record.response_body = row.response_body;
  if (row.error !== null) record.error = JSON.parse(row.error) as ForwardRecord['error'];
  if (row.expires_at !== null) record.expires_at = row.expires_at;
  if (row.stream === 1) record.stream = true;
  if (row.request_headers !== null) record.request_headers = row.request_headers;
  if (row.attempts !== null && row.attempts !== undefined) record.attempts = JSON.parse(row.attempts) as ForwardRecord['attempts'];
  if (row.dead_letter !== null && row.dead_letter !== undefined) record.dead_letter = row.dead_letter as DeadLetterReason;
  if (row.side_bodies !== null) {
    const [request, response, headers] = JSON.parse(row.side_bodies) as Array<string | null>;
    if (request !== null) record.request_body = request;
    if (response !== null) record.response_body = response;
    if (headers !== null) record.request_headers = headers;
  }
  if (row.side_prefix !== undefined && row.side_prefix !== null) {
    const [request, requestWhole, response, responseWhole] = JSON.parse(row.side_prefix) as [string | null, number | null, string | null, number | null];
    record.side_texts = compactTextsOfPrefixes(request, requestWhole !== 0, response, responseWhole !== 0);
  }
  if (row.body_segment !== null) {
    record.body_ref = { segment: row.body_segment, at: row.body_at ?? 0, len: row.body_len ?? 0 };
    record.compact_texts = JSON.parse(row.compact ?? '["","",true,false]') as CompactTexts;
  }
  return record;
}

/** One request's row as it is now, and whose it is. */
export interface HistoryEntry {
  owner: HistoryOwner;
  record: ForwardRecord;
  /** Its bodies already in a segment of their own (placeBodies): the row points there. */
  placed?: PlacedAlone;
}

/** Bodies and headers of more than this many characters in all wait in forward_bodies, not in the row. */
const bodyChars = (record: ForwardRecord) => (record.request_body?.length ?? 0) + (record.response_body?.length ?? 0) + (record.request_headers?.length ?? 0);
const keepsInline = (record: ForwardRecord) => bodyChars(record) <= INLINE_BODY_CHARS;

const entryValues = ({ owner, record, placed }: HistoryEntry) => {
  const inline = keepsInline(record) && !placed;
  return [
    owner.serviceId,
    owner.callerKey,
    record.id,
    record.method,
    record.url,
    record.queue_name,
    record.status,
    record.created,
    record.updated,
    record.executed ?? null,
    record.responded ?? null,
    record.status_code ?? null,
    inline ? (record.request_body ?? null) : null,
    inline ? (record.response_body ?? null) : null,
    record.error ? JSON.stringify(record.error) : null,
    historyExpiry(record),
    record.stream ? 1 : 0,
    inline ? (record.request_headers ?? null) : null,
    record.attempts ? JSON.stringify(record.attempts) : null,
    record.dead_letter ?? null,
    placed?.segment ?? null,
    placed ? 0 : null,
    placed?.len ?? null,
    placed?.compact ?? null,
  ];
};

const bodyValues = ({ owner, record }: HistoryEntry) => [
  owner.serviceId,
  owner.callerKey,
  record.method,
  record.url,
  record.id,
  record.request_body ?? null,
  record.response_body ?? null,
  record.request_headers ?? null,
];
const BODY_COLUMNS = 'service_id, caller_key, method, url, id, request_body, response_body, request_headers';
const BODIES_FROM_JSON = BODY_COLUMNS.split(', ')
  .map((_, i) => `json_extract(value, '$[${i}]')`)
  .join(', ');

const waits = (entry: HistoryEntry) => !keepsInline(entry.record) && !entry.placed;

/** The entries' bodies that wait in forward_bodies, and the segments of those placed alone (none: no statement). */
function bodiesStatement(db: HistoryDb, entries: readonly HistoryEntry[], conflict: string): HistoryStatement[] {
  const waiting = entries.filter(waits);
  const placed = entries.filter((entry) => entry.placed !== undefined);
  return [
    ...(waiting.length === 0
      ? []
      : [
          db
            .prepare(`INSERT INTO forward_bodies (${BODY_COLUMNS}) SELECT ${BODIES_FROM_JSON} FROM json_each(?) WHERE true ${conflict}`)
            .bind(JSON.stringify(waiting.map(bodyValues))),
        ]),
    ...(placed.length === 0 ? [] : placedStatements(db, placed)),
  ];
}

/**
 * A placed entry's segment is registered for the cleanup, after the rows were written: with its row's expiry
 * when the row points at it, else due at once (a later state in the same batch, or a row already written,
 * won); and bodies an earlier state left waiting go.
 */
function placedStatements(db: HistoryDb, placed: readonly HistoryEntry[]): HistoryStatement[] {
  const rows = placed.map(({ owner, record, placed: at }) => [
    at!.segment,
    historyExpiry(record),
    owner.serviceId,
    owner.callerKey,
    record.method,
    record.url,
    record.id,
  ]);
  return [
    db
      .prepare(
        `INSERT INTO forward_segments (key, expires_at)
         SELECT json_extract(j.value, '$[0]'), CASE WHEN EXISTS (SELECT 1 FROM forward_requests AS f
           WHERE f.service_id = json_extract(j.value, '$[2]') AND f.caller_key = json_extract(j.value, '$[3]') AND f.method = json_extract(j.value, '$[4]')
             AND f.url = json_extract(j.value, '$[5]') AND f.id = json_extract(j.value, '$[6]') AND f.body_segment = json_extract(j.value, '$[0]'))
           THEN json_extract(j.value, '$[1]') ELSE 0 END
         FROM json_each(?) AS j WHERE true ON CONFLICT DO NOTHING`,
      )
      .bind(JSON.stringify(rows)),
    db
      .prepare(
        // json_each first (CROSS JOIN keeps the order): each body is found by its key, not by a scan of the table.
        `DELETE FROM forward_bodies WHERE rowid IN (SELECT b.rowid FROM json_each(?) AS j CROSS JOIN forward_bodies AS b
           WHERE b.service_id = json_extract(j.value, '$[2]') AND b.caller_key = json_extract(j.value, '$[3]') AND b.method = json_extract(j.value, '$[4]')
             AND b.url = json_extract(j.value, '$[5]') AND b.id = json_extract(j.value, '$[6]'))`,
      )
      .bind(JSON.stringify(rows)),
  ];
}

/** Bodies whose JSON parameter passes this many bytes are placed alone in R2 (placeBodies), never bound to a statement. */
const WAITING_BODY_BYTES = 900_000;
const bodyBytes = (entry: HistoryEntry) => utf8Bytes(JSON.stringify(bodyValues(entry)));

/**
 * The entries with bodies too large to wait in forward_bodies placed in segments of their own, one R2 write
 * at a time (an invocation opens at most 6 connections); the others as they are. Before historyUpsert*.
 */
export async function placeBodies(bucket: R2Bucket, entries: readonly HistoryEntry[]): Promise<HistoryEntry[]> {
  const placed: HistoryEntry[] = [];
  for (const entry of entries) {
    const alone = !entry.placed && waits(entry) && bodyBytes(entry) > WAITING_BODY_BYTES;
    placed.push(alone ? { ...entry, placed: await placeAlone(bucket, entry.owner, entry.record) } : entry);
  }
  return placed;
}

const ENTRY_COLUMNS = `service_id, caller_key, ${WRITTEN_COLUMNS}, body_segment, body_at, body_len, compact`;
const FROM_JSON = ENTRY_COLUMNS.split(', ')
  .map((_, i) => `json_extract(value, '$[${i}]')`)
  .join(', ');

/**
 * Writes rows as they are now, in one statement however many (they travel as one JSON parameter); a
 * later state of a request replaces an earlier one, also within the same call.
 */
export function historyUpsert(db: HistoryDb, entries: readonly HistoryEntry[]): HistoryStatement[] {
  const rows = db
    .prepare(
      `INSERT INTO forward_requests (${ENTRY_COLUMNS})
       SELECT ${FROM_JSON} FROM json_each(?) WHERE true
       ON CONFLICT (service_id, caller_key, method, url, id) DO UPDATE SET
         queue_name = excluded.queue_name, status = excluded.status, updated = excluded.updated,
         executed = excluded.executed, responded = excluded.responded, status_code = excluded.status_code,
         request_body = excluded.request_body, response_body = excluded.response_body, error = excluded.error,
         expires_at = excluded.expires_at, stream = excluded.stream, request_headers = excluded.request_headers, attempts = excluded.attempts, dead_letter = excluded.dead_letter,
         body_segment = excluded.body_segment, body_at = excluded.body_at, body_len = excluded.body_len, compact = excluded.compact`,
    )
    .bind(JSON.stringify(entries.map(entryValues)));
  return [
    rows,
    ...bodiesStatement(
      db,
      entries,
      `ON CONFLICT (service_id, caller_key, method, url, id) DO UPDATE SET
         request_body = excluded.request_body, response_body = excluded.response_body, request_headers = excluded.request_headers`,
    ),
  ];
}

/** A statement's JSON parameter is cut at this many bytes as encoded (UTF-8): a D1 value holds at most 2,000,000. */
const STATEMENT_PARAM_BYTES = 1_800_000;
/** An entry's bytes in the rows' parameter and in the bodies' parameter. */
const entrySizes = (entry: HistoryEntry): [number, number] => [utf8Bytes(JSON.stringify(entryValues(entry))) + 1, waits(entry) ? bodyBytes(entry) + 1 : 0];

/**
 * Writes any number of rows in as few statements as their size as encoded allows (an entry over the size
 * goes alone, and is refused: the outbox dead-letters it).
 */
export function historyUpsertAll(db: HistoryDb, entries: readonly HistoryEntry[]): HistoryStatement[] {
  const groups: HistoryEntry[][] = [];
  let size = [0, 0];
  for (const entry of entries) {
    const [rows, bodies] = entrySizes(entry);
    if (groups.length === 0 || size[0] + rows > STATEMENT_PARAM_BYTES || size[1] + bodies > STATEMENT_PARAM_BYTES) {
      groups.push([]);
      size = [0, 0];
    }
    groups[groups.length - 1].push(entry);
    size = [size[0] + rows, size[1] + bodies];
  }
  return groups.flatMap((group) => historyUpsert(db, group));
}

/** A request's first row, written as it is stored or sent; a later state already written wins. */
export function historyInsertNew(db: HistoryDb, entry: HistoryEntry): HistoryStatement[] {
  return historyWriteOne(db, entry, 'ON CONFLICT DO NOTHING', 'ON CONFLICT DO NOTHING');
}

const ROW_UPDATE = `ON CONFLICT (service_id, caller_key, method, url, id) DO UPDATE SET
  queue_name = excluded.queue_name, status = excluded.status, updated = excluded.updated,
  executed = excluded.executed, responded = excluded.responded, status_code = excluded.status_code,
  request_body = excluded.request_body, response_body = excluded.response_body, error = excluded.error,
  expires_at = excluded.expires_at, stream = excluded.stream, request_headers = excluded.request_headers, attempts = excluded.attempts, dead_letter = excluded.dead_letter,
  body_segment = excluded.body_segment, body_at = excluded.body_at, body_len = excluded.body_len, compact = excluded.compact`;
const BODIES_UPDATE = `ON CONFLICT (service_id, caller_key, method, url, id) DO UPDATE SET
  request_body = excluded.request_body, response_body = excluded.response_body, request_headers = excluded.request_headers`;

/** One request's row as it is now (a later state replaces an earlier one): the direct path's write. */
export function historyUpsertOne(db: HistoryDb, entry: HistoryEntry): HistoryStatement[] {
  return historyWriteOne(db, entry, ROW_UPDATE, BODIES_UPDATE);
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const ROW_MARKS = marks(ENTRY_COLUMNS.split(', ').length);
const BODY_MARKS = marks(BODY_COLUMNS.split(', ').length);

/** One entry with plain bound values (no JSON to build and take apart, as the batched writes do). */
function historyWriteOne(db: HistoryDb, entry: HistoryEntry, rowConflict: string, bodiesConflict: string): HistoryStatement[] {
  return [
    db.prepare(`INSERT INTO forward_requests (${ENTRY_COLUMNS}) VALUES (${ROW_MARKS}) ${rowConflict}`).bind(...entryValues(entry)),
    ...(waits(entry) ? [db.prepare(`INSERT INTO forward_bodies (${BODY_COLUMNS}) VALUES (${BODY_MARKS}) ${bodiesConflict}`).bind(...bodyValues(entry))] : []),
    ...(entry.placed ? placedStatements(db, [entry]) : []),
  ];
}

/** Deletes these requests' rows in one statement (each statement is one of the invocation's D1 queries). */
export function historyDeleteAll(db: HistoryDb, rows: readonly { owner: HistoryOwner; address: RequestAddress }[]): HistoryStatement {
  const keys = rows.map(({ owner, address }) => [owner.serviceId, owner.callerKey, address.method, address.url, address.id]);
  return db
    .prepare(
      `DELETE FROM forward_requests WHERE (service_id, caller_key, method, url, id) IN
         (SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?))`,
    )
    .bind(JSON.stringify(keys));
}

/** The caller's request at this address, with its bodies, unless it expired. */
export async function findHistory(db: HistoryDb, bodies: R2Bucket, owner: HistoryOwner, address: RequestAddress, now: number): Promise<ForwardRecord | null> {
  const row = await db
    .prepare(
      `SELECT ${COLUMNS} FROM forward_requests AS f
       WHERE service_id = ? AND caller_key = ? AND method = ? AND url = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    )
    .bind(owner.serviceId, owner.callerKey, address.method, address.url, address.id, now)
    .first<HistoryRow>();
  if (!row) return null;
  const record = recordOf(row);
  await loadBodies(bodies, [record]);
  return record;
}

/** Where a page ended: the id of its last request (ids sort as their stamps: see migration 0006). */
export type Position = string;
const isPosition = (value: unknown): value is Position => typeof value === 'string' && value.length <= 64;

/** The queue filters of a listing as SQL (applied in the read, so pages are full while more remain). */
function queueFilter(query: ForwardHistoryQuery): { sql: string; binds: unknown[] } {
  const parts: string[] = [];
  const binds: unknown[] = [];
  if (query.queue !== undefined) {
    parts.push(query.queue_exact ? 'queue_name = ?' : 'substr(queue_name, 1, length(?)) = ?');
    binds.push(...(query.queue_exact ? [query.queue] : [query.queue, query.queue]));
  }
  if (query.queue_exclude !== undefined) {
    parts.push('(queue_name IS NULL OR queue_name <> ?)');
    binds.push(query.queue_exclude);
  }
  if (query.status !== undefined) {
    parts.push(STATUS_FILTER_SQL);
    binds.push(query.status);
  }
  return { sql: parts.map((part) => ` AND ${part}`).join(''), binds };
}

/**
 * Up to `count` of the caller's requests to one url and method after `after`, newest first, each as it is
 * now (see live-history.ts): run by the caller's object over its own history.
 */
export function historyRows(
  db: HistoryDb,
  bodies: R2Bucket,
  owner: HistoryOwner,
  query: ForwardHistoryQuery,
  after: Position | null,
  count: number,
  now: number,
  live: LiveLookup,
): Promise<ForwardRecord[]> {
  const filter = queueFilter(query);
  const read = async (from: Position | null, n: number) => {
    const { results } = await db
      .prepare(
        `SELECT ${query.compact === true ? COMPACT_COLUMNS : COLUMNS} FROM forward_requests AS f
         WHERE service_id = ? AND caller_key = ? AND method = ? AND url = ? AND (expires_at IS NULL OR expires_at > ?)
           ${from !== null ? 'AND id < ?' : ''}${filter.sql}
         ORDER BY id DESC LIMIT ?`,
      )
      .bind(owner.serviceId, owner.callerKey, query.method, query.url, now, ...(from !== null ? [from] : []), ...filter.binds, n)
      .all<HistoryRow>();
    const records = results.map(recordOf);
    // A compact listing shows the texts the row keeps: no body is read.
    if (query.compact !== true) await loadBodies(bodies, records);
    return records;
  };
  const fresh = async (records: ForwardRecord[]) =>
    (
      await freshen(
        records.map((record) => ({ owner, record })),
        live,
        ({ record }) => findHistory(db, bodies, owner, record, now),
      )
    ).filter((record): record is ForwardRecord => record !== null && (query.status === undefined || record.status === query.status));
  return fillPage(after, count, read, (record) => record.id, fresh);
}

/** The caller's history as the spec's listing pages it; the rows come from the caller's object (historyRows). */
export function listHistory(
  store: { historyRows(owner: HistoryOwner, query: ForwardHistoryQuery, after: Position | null, count: number): Promise<ForwardRecord[]> },
  owner: HistoryOwner,
  query: ForwardHistoryQuery,
  page: PageRequest,
): Promise<DatabaseResponse<RequestHistory>> {
  return pageOf(page, {
    isPosition,
    rows: (after, count) => store.historyRows(owner, query, after, count),
    position: (record): Position => record.id,
    shape: (record) => historyItemOf(record, query.compact === true),
  });
}
