/**
 * Bodies out of D1 (issue 24): a request's bodies and headers wait in forward_bodies (history.ts); a minute
 * after a caller's settled requests reached the history, the caller's queue object moves them into ONE R2
 * object (a segment) and each D1 row keeps only where its part is (`body_segment`, `body_at`, `body_len`)
 * and the short texts a compact item shows; the bodies' rows are deleted. A listing reads each distinct
 * segment of its page once, with one range read; a compact listing reads none.
 * Rows holding 200 characters or less of bodies keep them inline (a compact text would be as long).
 */
import type { HistoryDb } from './history-db';
import type { HistoryOwner } from './history';
import { type CompactTexts, compactTextsOf, type ForwardRecord } from './record';

/** Rows with more than this many characters of bodies and headers move to a segment. */
export const INLINE_BODY_CHARS = 200;
/** Rows one compaction step moves (one D1 read, one R2 write, one D1 batch of two statements). */
export const SEGMENT_ROWS = 100;
/** A segment is cut at about this many bytes, so a page's range reads stay small. */
const SEGMENT_BYTES = 4_000_000;
/** Segments a listing reads at once (an invocation opens at most 6 connections). */
const CONCURRENT_READS = 6;

export interface BodyRef {
  segment: string;
  at: number;
  len: number;
}

/** A row's part of a segment: its bodies as stored in D1 (JSON text, or null). */
interface Part {
  q: string | null;
  s: string | null;
  h: string | null;
}

/** A forward_bodies row `b` and its request's row `f`. */
const SAME_REQUEST = 'f.service_id = b.service_id AND f.caller_key = b.caller_key AND f.method = b.method AND f.url = b.url AND f.id = b.id';

/**
 * Rows written before migration 0016 keep their bodies inline: the same expression as the partial index
 * forward_requests_inline (migration 0013), so the read uses it.
 */
const INLINE_TEST = `body_segment IS NULL AND length(coalesce(request_body, '')) + length(coalesce(response_body, '')) + length(coalesce(request_headers, '')) > ${INLINE_BODY_CHARS}`;

interface InlineRow {
  method: string;
  url: string;
  id: string;
  updated: number;
  expires_at: number | null;
  request_body: string | null;
  response_body: string | null;
  request_headers: string | null;
}

export interface Placed {
  method: string;
  url: string;
  id: string;
  updated: number;
  at: number;
  len: number;
  compact: string;
}

/** Lays rows out one after another: the segment's bytes and where each row's part is. */
export function layOut(rows: readonly InlineRow[]): { bytes: Uint8Array; placed: Placed[] } {
  const encoder = new TextEncoder();
  const encoded = rows.map((row) => encoder.encode(JSON.stringify({ q: row.request_body, s: row.response_body, h: row.request_headers } satisfies Part)));
  const bytes = new Uint8Array(encoded.reduce((n, part) => n + part.length, 0));
  let at = 0;
  const placed = rows.map((row, i) => {
    bytes.set(encoded[i], at);
    const texts: CompactTexts = compactTextsOf(row.request_body ?? undefined, row.response_body ?? undefined);
    const place = { method: row.method, url: row.url, id: row.id, updated: row.updated, at, len: encoded[i].length, compact: JSON.stringify(texts) };
    at += encoded[i].length;
    return place;
  });
  return { bytes, placed };
}

/** Where a row's bodies were put alone (see placeAlone): the columns its D1 row then holds. */
export interface PlacedAlone {
  segment: string;
  len: number;
  compact: string;
}

/**
 * A row's bodies as a segment of their own, written before the row: bodies too large for a D1 row (2,000,000
 * bytes) or a statement's JSON parameter never wait in forward_bodies (issue 25 item 3).
 */
export async function placeAlone(bucket: R2Bucket, owner: HistoryOwner, record: ForwardRecord): Promise<PlacedAlone> {
  const { bytes, placed } = layOut([
    {
      method: record.method,
      url: record.url,
      id: record.id,
      updated: record.updated,
      expires_at: null,
      request_body: record.request_body ?? null,
      response_body: record.response_body ?? null,
      request_headers: record.request_headers ?? null,
    },
  ]);
  // `alone-` marks a segment of one row: migration 0018 expires it when its row moves on.
  const segment = `fwd/segments/${owner.serviceId}/${await callerHash(owner.callerKey)}/alone-${record.id}-${crypto.randomUUID()}`;
  await bucket.put(segment, bytes, { httpMetadata: { contentType: 'application/octet-stream' } });
  return { segment, len: placed[0].len, compact: placed[0].compact };
}

/** The caller's hash in R2 keys (no user id or visitor key appears in a key). */
export async function callerHash(callerKey: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(callerKey));
  return btoa(String.fromCharCode(...new Uint8Array(digest).subarray(0, 18)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

/**
 * One compaction step for a caller: up to SEGMENT_ROWS settled rows still holding their bodies, oldest
 * first, written as one segment, then pointed at it in one D1 batch (the segment registered with the last
 * expiry of its rows, so the cleanup deletes it). A row changed meanwhile keeps its new inline bodies.
 */
export async function compactHistory(db: HistoryDb, bucket: R2Bucket, owner: HistoryOwner): Promise<{ moved: number; more: boolean }> {
  const { results } = await db
    .prepare(
      `SELECT method, url, id, updated, expires_at, request_body, response_body, request_headers FROM (
         SELECT f.method, f.url, f.id, f.updated, f.expires_at, b.request_body, b.response_body, b.request_headers, f.status, f.stream
           FROM forward_bodies AS b CROSS JOIN forward_requests AS f ON ${SAME_REQUEST}
           WHERE b.service_id = ?1 AND b.caller_key = ?2 AND f.body_segment IS NULL
         UNION ALL
         SELECT method, url, id, updated, expires_at, request_body, response_body, request_headers, status, stream
           FROM forward_requests WHERE service_id = ?1 AND caller_key = ?2 AND ${INLINE_TEST}
       ) WHERE status IN ('resolved', 'failed') AND NOT (stream = 1 AND response_body IS NULL)
       ORDER BY id LIMIT ?3`,
    )
    .bind(owner.serviceId, owner.callerKey, SEGMENT_ROWS)
    .all<InlineRow>();
  if (results.length === 0) return { moved: 0, more: false };
  const rows: InlineRow[] = [];
  let size = 0;
  for (const row of results) {
    size += (row.request_body?.length ?? 0) + (row.response_body?.length ?? 0) + (row.request_headers?.length ?? 0);
    if (rows.length > 0 && size > SEGMENT_BYTES) break;
    rows.push(row);
  }
  const { bytes, placed } = layOut(rows);
  const key = `fwd/segments/${owner.serviceId}/${await callerHash(owner.callerKey)}/${rows[0].id}-${crypto.randomUUID()}`;
  const expiresAt = Math.max(...rows.map((row) => row.expires_at ?? Number.MAX_SAFE_INTEGER));
  await bucket.put(key, bytes, { httpMetadata: { contentType: 'application/octet-stream' } });
  try {
    await db.batch([
      db.prepare('INSERT INTO forward_segments (key, expires_at) VALUES (?, ?)').bind(key, expiresAt),
      // Each moved row found by its whole key, j first (its rows carry the caller, so f's key comes from j):
      // with the caller bound on f, the planner read every row of the caller once per moved row (issue 34:
      // 2 s a step at 2,500 rows, D1 held meanwhile).
      db
        .prepare(
          `WITH j AS MATERIALIZED (SELECT ?3 AS service_id, ?4 AS caller_key, value ->> 'method' AS method, value ->> 'url' AS url,
             value ->> 'id' AS id, value ->> 'updated' AS updated, value ->> 'at' AS at, value ->> 'len' AS len, value ->> 'compact' AS compact
             FROM json_each(?2))
           UPDATE forward_requests AS f SET request_body = NULL, response_body = NULL, request_headers = NULL, body_segment = ?1,
             body_at = j.at, body_len = j.len, compact = j.compact
           FROM j
           WHERE f.service_id = j.service_id AND f.caller_key = j.caller_key AND f.method = j.method AND f.url = j.url AND f.id = j.id
             AND f.updated = j.updated AND f.body_segment IS NULL`,
        )
        .bind(key, JSON.stringify(placed), owner.serviceId, owner.callerKey),
      // Bodies waiting in their own table leave it once their row points at the segment.
      db
        .prepare(
          `DELETE FROM forward_bodies WHERE rowid IN (
             SELECT b.rowid FROM forward_bodies AS b CROSS JOIN forward_requests AS f ON ${SAME_REQUEST}
             WHERE b.service_id = ? AND b.caller_key = ? AND f.body_segment = ?)`,
        )
        .bind(owner.serviceId, owner.callerKey, key),
    ]);
  } catch (error) {
    // Nothing points at it: gone again (an object left by a failed delete is removed by the bucket's lifecycle rule).
    await bucket.delete(key).catch(() => undefined);
    throw error;
  }
  return { moved: rows.length, more: results.length === SEGMENT_ROWS || rows.length < results.length };
}

/**
 * Puts the bodies back into records read from D1 whose bodies are in segments: one range read per distinct
 * segment (from its first to its last part on the page), never one per row.
 */
export async function loadBodies(bucket: R2Bucket, records: readonly ForwardRecord[]): Promise<void> {
  const bySegment = new Map<string, ForwardRecord[]>();
  for (const record of records) {
    if (!record.body_ref) continue;
    const group = bySegment.get(record.body_ref.segment) ?? [];
    group.push(record);
    bySegment.set(record.body_ref.segment, group);
  }
  const reads = [...bySegment.entries()].map(([segment, group]) => async () => {
    const from = Math.min(...group.map((record) => record.body_ref!.at));
    const to = Math.max(...group.map((record) => record.body_ref!.at + record.body_ref!.len));
    const object = await bucket.get(segment, { range: { offset: from, length: to - from } });
    if (!object) throw new Error(`history segment ${segment} is missing`);
    const bytes = new Uint8Array(await object.arrayBuffer());
    const decoder = new TextDecoder();
    for (const record of group) {
      const ref = record.body_ref!;
      const part = JSON.parse(decoder.decode(bytes.subarray(ref.at - from, ref.at - from + ref.len))) as Part;
      if (part.q !== null) record.request_body = part.q;
      if (part.s !== null) record.response_body = part.s;
      if (part.h !== null) record.request_headers = part.h;
      delete record.body_ref;
    }
  });
  for (let i = 0; i < reads.length; i += CONCURRENT_READS) await Promise.all(reads.slice(i, i + CONCURRENT_READS).map((read) => read()));
}

/** Segments whose rows all expired: deleted from R2 (one call for up to 1,000 keys), then forgotten. */
export async function sweepExpiredSegments(db: HistoryDb, bucket: R2Bucket, now: number): Promise<{ removed: number; statements: number }> {
  const { results } = await db.prepare('SELECT key FROM forward_segments WHERE expires_at <= ? LIMIT 1000').bind(now).all<{ key: string }>();
  if (results.length === 0) return { removed: 0, statements: 1 };
  const keys = results.map((row) => row.key);
  await bucket.delete(keys);
  await db.prepare('DELETE FROM forward_segments WHERE key IN (SELECT value FROM json_each(?))').bind(JSON.stringify(keys)).run();
  return { removed: keys.length, statements: 2 };
}
