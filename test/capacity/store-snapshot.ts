/**
 * What every store of the deployment holds at one moment, found without knowing the layout: D1's tables
 * and indexes, every Durable Object of every namespace bound in `env` (summed per namespace), every R2
 * bucket bound in `env` (grouped by the shape of the keys), and the messages sent to each queue so far
 * (queue-counter.ts). Two snapshots taken around a scenario give what it wrote.
 */
import { env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test';
import { queueMessagesSent, type QueueCount } from './queue-counter';
import { sqliteFootprint, type Footprint } from './sqlite-footprint';

export interface SqliteSnapshot {
  /** The database file's size, whole pages (D1: meta.size_after; a Durable Object: sql.databaseSize). */
  physicalBytes: number;
  footprint: Footprint;
  /** Objects of the namespace (1 for D1). */
  objects: number;
}

export interface BucketSnapshot {
  /** By key shape: the key with each scenario's ids replaced by a name (see keyShape). */
  byShape: Record<string, { objects: number; bytes: number }>;
}

export interface StoreSnapshot {
  d1: Record<string, SqliteSnapshot>;
  durableObjects: Record<string, SqliteSnapshot>;
  r2: Record<string, BucketSnapshot>;
  queues: Record<string, QueueCount>;
}

const bindings = () => Object.entries(env as unknown as Record<string, unknown>);

/** A binding's class in workerd (a service binding answers any property name, so bindings are not duck-typed). */
const classOf = (value: unknown) => (typeof value === 'object' && value !== null ? value.constructor?.name : undefined);
const isD1 = (value: unknown): value is D1Database => classOf(value) === 'D1Database';
const isNamespace = (value: unknown): value is DurableObjectNamespace => classOf(value) === 'DurableObjectNamespace';
const isBucket = (value: unknown): value is R2Bucket => classOf(value) === 'R2Bucket';

async function d1Snapshot(db: D1Database): Promise<SqliteSnapshot> {
  const footprint = await sqliteFootprint(async (sql) => (await db.prepare(sql).all()).results as Record<string, unknown>[]);
  const { meta } = await db.prepare('SELECT 1').all();
  return { physicalBytes: Number((meta as { size_after?: number }).size_after ?? 0), footprint, objects: 1 };
}

function addFootprint(total: Footprint, more: Footprint): void {
  for (const [name, btree] of Object.entries(more)) {
    const sum = (total[name] ??= { ...btree, rows: 0, bytes: 0 });
    sum.rows += btree.rows;
    sum.bytes += btree.bytes;
  }
}

async function namespaceSnapshot(namespace: DurableObjectNamespace): Promise<SqliteSnapshot> {
  const total: SqliteSnapshot = { physicalBytes: 0, footprint: {}, objects: 0 };
  for (const id of await listDurableObjectIds(namespace)) {
    const stub = namespace.get(id);
    const { size, footprint } = await runInDurableObject(stub, async (_instance: unknown, state: DurableObjectState) => ({
      size: state.storage.sql.databaseSize,
      footprint: await sqliteFootprint(async (sql) => state.storage.sql.exec(sql).toArray() as Record<string, unknown>[]),
    }));
    total.objects += 1;
    total.physicalBytes += size;
    addFootprint(total.footprint, footprint);
  }
  return total;
}

/** The ids the scenarios made (projects, tickets, callers, requests), so R2 keys group by shape. */
const idPatterns: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{uuid}'],
  [/\d{10,}/g, '{n}'],
];

/** A key's shape: ids named, and no more than its first three segments. */
export function keyShape(key: string, names: Record<string, string>): string {
  let shape = key;
  for (const [id, name] of Object.entries(names)) shape = shape.split(id).join(name);
  for (const [pattern, name] of idPatterns) shape = shape.replace(pattern, name);
  const segments = shape.split('/');
  return segments.length > 3 ? `${segments.slice(0, 3).join('/')}/…` : shape;
}

async function bucketSnapshot(bucket: R2Bucket, names: Record<string, string>): Promise<BucketSnapshot> {
  const byShape: BucketSnapshot['byShape'] = {};
  let cursor: string | undefined;
  // Bounded: 1,000 keys a page, at most 1,000 pages.
  for (let page = 0; page < 1_000; page++) {
    const listing = await bucket.list({ cursor, limit: 1_000 });
    for (const object of listing.objects) {
      const sum = (byShape[keyShape(object.key, names)] ??= { objects: 0, bytes: 0 });
      sum.objects += 1;
      sum.bytes += object.size;
    }
    if (!listing.truncated) return { byShape };
    cursor = listing.cursor;
  }
  throw new Error('bucket listing did not end within 1,000 pages');
}

/** Every store now. `names` maps ids found in R2 keys to the names they are reported under. */
export async function snapshotStores(names: Record<string, string> = {}): Promise<StoreSnapshot> {
  const snapshot: StoreSnapshot = { d1: {}, durableObjects: {}, r2: {}, queues: queueMessagesSent() };
  for (const [binding, value] of bindings()) {
    if (isD1(value)) snapshot.d1[binding] = await d1Snapshot(value);
    else if (isNamespace(value)) snapshot.durableObjects[binding] = await namespaceSnapshot(value);
    else if (isBucket(value)) snapshot.r2[binding] = await bucketSnapshot(value, names);
  }
  return snapshot;
}
