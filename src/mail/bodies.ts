/**
 * Mail bodies in R2 (env.BODIES). A body larger than INLINE_BODY_BYTES is one object
 * `mail/<expiry day>/<service_id>/<uuid>` holding JSON { html, text, fill? }; smaller ones stay in
 * their D1 row (docs/decisions.md, "Mail storage"). The expiry day leads the key so the cleanup
 * deletes whole days without reading D1, orphans (a body whose row was never written) included.
 */

/** html + text bytes up to which a body stays in its D1 row. */
export const INLINE_BODY_BYTES = 1024;
/** R2 reads of one listing page in flight at once (a Worker holds at most 6 open connections). */
const READ_CONCURRENCY = 6;
export const MAIL_PREFIX = 'mail/';

export interface StoredBody {
  html: string;
  text: string;
  /** Placeholder values of a newsletter snapshot: the reader fills html and text with these plus `email`. */
  fill?: Record<string, string>;
}

const encoder = new TextEncoder();
export const bodyBytes = (body: { html: string; text: string }): number => encoder.encode(body.html).byteLength + encoder.encode(body.text).byteLength;
export const fitsInline = (body: { html: string; text: string }): boolean => bodyBytes(body) <= INLINE_BODY_BYTES;

/** 'YYYY-MM-DD' (UTC) of a time: the day part of a body's key. */
export const keyDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const bodyKey = (serviceId: string, expires: number): string => `${MAIL_PREFIX}${keyDay(expires)}/${serviceId}/${crypto.randomUUID()}`;

/** Stores a body under a new key; answers the key. */
export async function putBody(bucket: R2Bucket, serviceId: string, expires: number, body: StoredBody): Promise<string> {
  const key = bodyKey(serviceId, expires);
  await bucket.put(key, JSON.stringify(body), { httpMetadata: { contentType: 'application/json' } });
  return key;
}

export async function readBody(bucket: R2Bucket, key: string): Promise<StoredBody> {
  const object = await bucket.get(key);
  if (!object) throw new Error(`mail body ${key} is missing`);
  return object.json<StoredBody>();
}

/** Reads each key once, READ_CONCURRENCY at a time. */
export async function readBodies(bucket: R2Bucket, keys: Iterable<string>): Promise<Map<string, StoredBody>> {
  const pending = [...new Set(keys)];
  const bodies = new Map<string, StoredBody>();
  const worker = async () => {
    for (let key = pending.pop(); key !== undefined; key = pending.pop()) bodies.set(key, await readBody(bucket, key));
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, pending.length) }, worker));
  return bodies;
}

/** Deletes a body; a failure leaves it to the cleanup of its day. */
export async function dropBody(bucket: R2Bucket, key: string): Promise<void> {
  try {
    await bucket.delete(key);
  } catch (err) {
    console.warn('mail body left to the cleanup', err instanceof Error ? err.message : String(err));
  }
}
