/**
 * Rows D1 held before the history moved to the callers' objects (migration 0021): the caller's object moves
 * its own rows here on its first history call, segments first (so deleting a D1 row never expires a segment
 * the object now owns), then the rows with their waiting bodies, oldest first, each chunk deleted from D1 only
 * once it is written here. A row this object already holds (written since) wins over D1's copy.
 */
import type { HistoryOwner } from '../src/forward/history';
import { callerHash } from '../src/forward/history-segments';

const ROW_COLUMNS =
  'service_id, caller_key, method, url, id, queue_name, status, created, updated, executed, responded, status_code, request_body, response_body, error, expires_at, stream, request_headers, body_segment, body_at, body_len, compact';
const BODY_COLUMNS = 'service_id, caller_key, method, url, id, request_body, response_body, request_headers';
/** Rows per D1 read (each chunk is three D1 queries). */
export const IMPORT_ROWS_PER_CHUNK = 500;

type Row = Record<string, SqlStorageValue>;

const KEY = (alias: string) =>
  `${alias}.service_id = value ->> 0 AND ${alias}.caller_key = value ->> 1 AND ${alias}.method = value ->> 2 AND ${alias}.url = value ->> 3 AND ${alias}.id = value ->> 4`;

function insertAll(sql: SqlStorage, table: string, columns: string, rows: Row[]): void {
  const names = columns.split(', ');
  const marks = names.map(() => '?').join(', ');
  for (const row of rows) sql.exec(`INSERT OR IGNORE INTO ${table} (${columns}) VALUES (${marks})`, ...names.map((name) => row[name] ?? null));
}

/** Moves every row D1 holds for this caller into the object's tables; the number of rows moved. */
export async function importLegacyHistory(db: D1Database, storage: DurableObjectStorage, owner: HistoryOwner): Promise<number> {
  const prefix = `fwd/segments/${owner.serviceId}/${await callerHash(owner.callerKey)}/`;
  for (;;) {
    const { results } = await db
      .prepare('SELECT key, expires_at FROM forward_segments WHERE key >= ? AND key < ? ORDER BY key LIMIT 1000')
      .bind(prefix, `${prefix}\uffff`)
      .all<Row>();
    if (results.length === 0) break;
    storage.transactionSync(() => insertAll(storage.sql, 'forward_segments', 'key, expires_at', results));
    await db
      .prepare('DELETE FROM forward_segments WHERE key IN (SELECT value FROM json_each(?))')
      .bind(JSON.stringify(results.map((row) => row.key)))
      .run();
  }
  let moved = 0;
  for (;;) {
    const { results: rows } = await db
      .prepare(`SELECT ${ROW_COLUMNS} FROM forward_requests WHERE service_id = ? AND caller_key = ? ORDER BY id LIMIT ?`)
      .bind(owner.serviceId, owner.callerKey, IMPORT_ROWS_PER_CHUNK)
      .all<Row>();
    if (rows.length === 0) return moved;
    const keys = JSON.stringify(rows.map((row) => [row.service_id, row.caller_key, row.method, row.url, row.id]));
    const { results: bodies } = await db
      .prepare(
        `SELECT ${BODY_COLUMNS.split(', ')
          .map((name) => `b.${name}`)
          .join(', ')} FROM json_each(?) CROSS JOIN forward_bodies AS b WHERE ${KEY('b')}`,
      )
      .bind(keys)
      .all<Row>();
    storage.transactionSync(() => {
      insertAll(storage.sql, 'forward_requests', ROW_COLUMNS, rows);
      insertAll(storage.sql, 'forward_bodies', BODY_COLUMNS, bodies);
    });
    await db
      .prepare(`DELETE FROM forward_requests WHERE rowid IN (SELECT f.rowid FROM json_each(?) CROSS JOIN forward_requests AS f WHERE ${KEY('f')})`)
      .bind(keys)
      .run();
    moved += rows.length;
  }
}
