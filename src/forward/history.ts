/**
 * The history of forwarded requests in D1 (spec 2.8, 4.3 forwardRequestHistory): one row per request of a
 * caller, written by the direct path once and by a queue's outbox per change; read by polls of requests
 * that left their queue's object, and listed newest first.
 */
import type { ForwardHistoryQuery } from '../../schemas/forward';
import type { RequestAddress, RequestHistory } from '../../schemas/forward-rules';
import type { DatabaseResponse } from '../../schemas/listings';
import { type PageRequest, pageOf } from '../http/paging';
import { type ForwardRecord, historyItemOf } from './record';

/** Whose history: the project and the caller (see ForwardCaller.key). */
export interface HistoryOwner {
  serviceId: string;
  callerKey: string;
}

interface HistoryRow {
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
}

const COLUMNS =
  'id, method, url, queue_name, status, created, updated, executed, responded, status_code, request_body, response_body, error, expires_at';

function recordOf(row: HistoryRow): ForwardRecord {
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
  return record;
}

/** Writes the record as it is now (a later snapshot of the same request replaces an earlier one). */
export function historyUpsert(db: D1Database, owner: HistoryOwner, record: ForwardRecord): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO forward_requests (service_id, caller_key, ${COLUMNS})
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
       ON CONFLICT (service_id, caller_key, method, url, id) DO UPDATE SET
         queue_name = excluded.queue_name, status = excluded.status, updated = excluded.updated,
         executed = excluded.executed, responded = excluded.responded, status_code = excluded.status_code,
         request_body = excluded.request_body, response_body = excluded.response_body, error = excluded.error,
         expires_at = excluded.expires_at`,
    )
    .bind(
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
      record.request_body ?? null,
      record.response_body ?? null,
      record.error ? JSON.stringify(record.error) : null,
      record.expires_at ?? null,
    );
}

export function historyDelete(db: D1Database, owner: HistoryOwner, address: RequestAddress): D1PreparedStatement {
  return db
    .prepare('DELETE FROM forward_requests WHERE service_id = ? AND caller_key = ? AND method = ? AND url = ? AND id = ?')
    .bind(owner.serviceId, owner.callerKey, address.method, address.url, address.id);
}

/** The caller's request at this address, unless it expired. */
export async function findHistory(db: D1Database, owner: HistoryOwner, address: RequestAddress, now: number): Promise<ForwardRecord | null> {
  const row = await db
    .prepare(
      `SELECT ${COLUMNS} FROM forward_requests
       WHERE service_id = ? AND caller_key = ? AND method = ? AND url = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    )
    .bind(owner.serviceId, owner.callerKey, address.method, address.url, address.id, now)
    .first<HistoryRow>();
  return row ? recordOf(row) : null;
}

type Position = [created: number, id: string];
const isPosition = (value: unknown): value is Position =>
  Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string';

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
    parts.push('status = ?');
    binds.push(query.status);
  }
  return { sql: parts.map((part) => ` AND ${part}`).join(''), binds };
}

/** The caller's requests to one url and method, newest first. */
export function listHistory(
  db: D1Database,
  owner: HistoryOwner,
  query: ForwardHistoryQuery,
  page: PageRequest,
  now: number,
): Promise<DatabaseResponse<RequestHistory>> {
  const filter = queueFilter(query);
  return pageOf(page, {
    isPosition,
    rows: async (after, count) => {
      const { results } = await db
        .prepare(
          `SELECT ${COLUMNS} FROM forward_requests
           WHERE service_id = ? AND caller_key = ? AND method = ? AND url = ? AND (expires_at IS NULL OR expires_at > ?)
             ${after ? 'AND (created < ? OR (created = ? AND id < ?))' : ''}${filter.sql}
           ORDER BY created DESC, id DESC LIMIT ?`,
        )
        .bind(owner.serviceId, owner.callerKey, query.method, query.url, now, ...(after ? [after[0], after[0], after[1]] : []), ...filter.binds, count)
        .all<HistoryRow>();
      return results;
    },
    position: (row): Position => [row.created, row.id],
    shape: (row) => historyItemOf(recordOf(row), query.compact === true),
  });
}

/** Rows one cleanup statement deletes at most (the daily cron; a later run takes the rest). */
const CLEANUP_ROWS = 10_000;

/** Drops rows whose expiry passed (readers already skip them). */
export const expiredHistory = (db: D1Database, now: number) =>
  db
    .prepare('DELETE FROM forward_requests WHERE rowid IN (SELECT rowid FROM forward_requests WHERE expires_at <= ? LIMIT ?)')
    .bind(now, CLEANUP_ROWS);
