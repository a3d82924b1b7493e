import { parseStoredAccessGroup, storedAccessGroup } from './access-group';
import type { IndexValue, RecordData, SourceSettings, StoredRecord, SubscriptionSettings } from './types';

/** D1 access of the records table. Pure rules live in write-plan.ts and reference-rules.ts. */

interface RecordRow {
  record_id: string;
  table_name: string;
  access_group: string;
  user_id: string;
  unique_id: string | null;
  data: string | null;
  index_name: string | null;
  index_value: string | null;
  tags: string;
  reference: string | null;
  readonly: number;
  source: string | null;
  subscription: string | null;
  ticket_id: string | null;
  consume_id: string | null;
  version: number;
  created: number;
  updated: number;
}

const COLUMNS =
  'record_id, table_name, access_group, user_id, unique_id, data, index_name, index_value, tags, reference, readonly, source, subscription, ticket_id, consume_id, version, created, updated';

function toRecord(row: RecordRow): StoredRecord {
  const subscription = row.subscription === null ? undefined : (JSON.parse(row.subscription) as SubscriptionSettings);
  return {
    record_id: row.record_id,
    table: { name: row.table_name, access_group: parseStoredAccessGroup(row.access_group), ...(subscription ? { subscription } : {}) },
    user_id: row.user_id,
    ...(row.data !== null ? { data: JSON.parse(row.data) as unknown } : {}),
    ...(row.index_name !== null && row.index_value !== null ? { index: { name: row.index_name, value: JSON.parse(row.index_value) as IndexValue } } : {}),
    tags: JSON.parse(row.tags) as string[],
    ...(row.unique_id !== null ? { unique_id: row.unique_id } : {}),
    ...(row.reference !== null ? { reference: row.reference } : {}),
    readonly: row.readonly === 1,
    ...(row.source !== null ? { source: JSON.parse(row.source) as SourceSettings } : {}),
    created: row.created,
    updated: row.updated,
    version: row.version,
    written_by: { ticket_id: row.ticket_id, consume_id: row.consume_id },
  };
}

/** The record as answered (RecordData), without the store's bookkeeping. */
export function recordData(record: StoredRecord): RecordData {
  const { version: _version, written_by: _writtenBy, ...data } = record;
  return data;
}

/** Column values of a record, in COLUMNS order. */
function values(serviceId: string, record: StoredRecord): unknown[] {
  return [
    serviceId,
    record.record_id,
    record.table.name,
    storedAccessGroup(record.table.access_group),
    record.user_id,
    record.unique_id ?? null,
    'data' in record ? JSON.stringify(record.data ?? null) : null,
    record.index?.name ?? null,
    record.index ? JSON.stringify(record.index.value) : null,
    JSON.stringify(record.tags),
    record.reference ?? null,
    record.readonly ? 1 : 0,
    record.source ? JSON.stringify(record.source) : null,
    record.table.subscription ? JSON.stringify(record.table.subscription) : null,
    record.written_by.ticket_id,
    record.written_by.consume_id,
    record.version,
    record.created,
    record.updated,
  ];
}

export async function loadRecord(db: D1Database, serviceId: string, recordId: string): Promise<StoredRecord | null> {
  const row = await db.prepare(`SELECT ${COLUMNS} FROM records WHERE service_id = ? AND record_id = ?`).bind(serviceId, recordId).first<RecordRow>();
  return row ? toRecord(row) : null;
}

export async function loadRecordByUniqueId(db: D1Database, serviceId: string, uniqueId: string): Promise<StoredRecord | null> {
  const row = await db.prepare(`SELECT ${COLUMNS} FROM records WHERE service_id = ? AND unique_id = ?`).bind(serviceId, uniqueId).first<RecordRow>();
  return row ? toRecord(row) : null;
}

/** A reference names a record by record_id or by unique_id; the record_id wins when both match. */
export async function loadReferencedRecord(db: D1Database, serviceId: string, idOrUniqueId: string): Promise<StoredRecord | null> {
  return (await loadRecord(db, serviceId, idOrUniqueId)) ?? (await loadRecordByUniqueId(db, serviceId, idOrUniqueId));
}

export interface ReferenceCounts {
  referencingCount: number;
  holderAlreadyReferences: boolean;
  granted: boolean;
}

/** What the reference rules need to know, in one round trip. `self` is left out of the counts. */
export async function referenceCounts(
  db: D1Database,
  serviceId: string,
  target: string,
  holder: string,
  actorUserId: string | null,
  self: string,
): Promise<ReferenceCounts> {
  const row = await db
    .prepare(
      `SELECT
         (SELECT COUNT(*) FROM records WHERE service_id = ?1 AND reference = ?2 AND record_id != ?4) AS referencing,
         EXISTS (SELECT 1 FROM records WHERE service_id = ?1 AND reference = ?2 AND user_id = ?3 AND record_id != ?4) AS holder_refs,
         EXISTS (SELECT 1 FROM record_grants WHERE service_id = ?1 AND record_id = ?2 AND user_id = ?5) AS granted`,
    )
    .bind(serviceId, target, holder, self, actorUserId)
    .first<{ referencing: number; holder_refs: number; granted: number }>();
  return { referencingCount: row?.referencing ?? 0, holderAlreadyReferences: row?.holder_refs === 1, granted: row?.granted === 1 };
}

/**
 * The conditions the referenced record's counting rules set, checked again inside the write so two
 * concurrent writes cannot both take the last place (D1 runs each statement alone).
 */
export interface ReferenceGuard {
  target: string;
  limit?: number;
  oncePerHolder?: boolean;
}

function guardSql(guard: ReferenceGuard | undefined, record: StoredRecord, first: number): { sql: string; params: unknown[] } {
  if (!guard) return { sql: '1', params: [] };
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `?${first + params.length - 1}`;
  };
  const target = param(guard.target);
  const parts = [`EXISTS (SELECT 1 FROM records WHERE service_id = ?1 AND record_id = ${target})`];
  const self = guard.limit !== undefined || guard.oncePerHolder ? param(record.record_id) : '';
  if (guard.limit !== undefined) {
    parts.push(`(SELECT COUNT(*) FROM records WHERE service_id = ?1 AND reference = ${target} AND record_id != ${self}) < ${param(guard.limit)}`);
  }
  if (guard.oncePerHolder) {
    const holder = param(record.user_id);
    parts.push(`NOT EXISTS (SELECT 1 FROM records WHERE service_id = ?1 AND reference = ${target} AND user_id = ${holder} AND record_id != ${self})`);
  }
  return { sql: parts.join(' AND '), params };
}

const PLACEHOLDERS = Array.from({ length: 19 }, (_, i) => `?${i + 1}`).join(', ');

/** Inserts a new record; null when the guard refused it or its record_id or unique_id is taken. */
export async function insertRecord(db: D1Database, serviceId: string, record: StoredRecord, guard?: ReferenceGuard): Promise<StoredRecord | null> {
  const check = guardSql(guard, record, 20);
  const row = await db
    .prepare(
      `INSERT INTO records (service_id, ${COLUMNS}) SELECT ${PLACEHOLDERS} WHERE ${check.sql}
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    )
    .bind(...values(serviceId, record), ...check.params)
    .first<RecordRow>();
  return row ? toRecord(row) : null;
}

/**
 * Writes an update over the version it was planned from; null when the record changed meanwhile,
 * the guard refused it, or the new unique_id belongs to another record (OR IGNORE).
 */
export async function updateRecord(
  db: D1Database,
  serviceId: string,
  record: StoredRecord,
  fromVersion: number,
  guard?: ReferenceGuard,
): Promise<StoredRecord | null> {
  const check = guardSql(guard, record, 21);
  const row = await db
    .prepare(
      `UPDATE OR IGNORE records SET table_name = ?3, access_group = ?4, user_id = ?5, unique_id = ?6, data = ?7, index_name = ?8,
         index_value = ?9, tags = ?10, reference = ?11, readonly = ?12, source = ?13, subscription = ?14, ticket_id = ?15,
         consume_id = ?16, version = ?17, updated = ?19
       WHERE service_id = ?1 AND record_id = ?2 AND version = ?20 AND ${check.sql}
       RETURNING ${COLUMNS}`,
    )
    .bind(...values(serviceId, record), fromVersion, ...check.params)
    .first<RecordRow>();
  return row ? toRecord(row) : null;
}

export interface RecordPosition {
  created: number;
  record_id: string;
}

/** One page of records, newest first, optionally of one table; `after` is the last position of the previous page. */
export async function listRecords(
  db: D1Database,
  serviceId: string,
  options: { table?: string; after?: RecordPosition | null; limit: number },
): Promise<StoredRecord[]> {
  const conditions = ['service_id = ?1'];
  const params: unknown[] = [serviceId, options.limit];
  if (options.table !== undefined) {
    params.push(options.table);
    conditions.push(`table_name = ?${params.length}`);
  }
  if (options.after) {
    params.push(options.after.created, options.after.record_id);
    conditions.push(`(created, record_id) < (?${params.length - 1}, ?${params.length})`);
  }
  const { results } = await db
    .prepare(`SELECT ${COLUMNS} FROM records WHERE ${conditions.join(' AND ')} ORDER BY created DESC, record_id DESC LIMIT ?2`)
    .bind(...params)
    .all<RecordRow>();
  return results.map(toRecord);
}
