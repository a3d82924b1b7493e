/**
 * Runs one scenario and reports what it wrote per operation in every store: the difference of two
 * snapshots (store-snapshot.ts) taken after a few warm-up operations (so the objects' creation and
 * schema, a one-time cost, are not charged to the operations) and after the measured operations with
 * every outbox drained and the work deferred by up to two minutes run (drain.ts: the steady state).
 */
import type { TestProject } from '../helpers/api';
import { drainToSteadyState, steadyStateRuns } from './drain';
import { countReaching } from './listed';
import type { Scenario } from './scenarios';
import { snapshotStores, type SqliteSnapshot, type StoreSnapshot } from './store-snapshot';

/** Operations run before the first snapshot. */
export const WARM_UP_OPERATIONS = 3;

export interface SqliteWrites {
  /** Growth of the database file(s), whole 4 KiB pages, per operation. */
  physical_bytes: number;
  /** Growth of the cells of every table and index (sqlite-footprint.ts), per operation. */
  logical_bytes: number;
  /** Rows added (net) to every table, per operation. */
  table_rows: number;
  /** Objects created during the measured operations (Durable Objects; 0 for D1). */
  new_objects: number;
  /** By table or index: rows and bytes per operation (only what changed). */
  btrees: Record<string, { kind: 'table' | 'index'; table: string; rows: number; bytes: number }>;
}

export interface ScenarioFigures {
  key: string;
  title: string;
  operations: number;
  d1: Record<string, SqliteWrites>;
  durable_objects: Record<string, SqliteWrites>;
  /** By bucket, then key shape: objects and bytes per operation; `total` sums the bucket. */
  r2: Record<string, Record<string, { objects: number; bytes: number }>>;
  /** By queue binding: messages and JSON bytes sent per operation. */
  queues: Record<string, { messages: number; bytes: number }>;
  /** Deferred jobs (due within drain.ts's STEADY_STATE_MS) run before the second snapshot, and alarms run for them. */
  deferred: { jobs: number; alarms: number };
}

const round = (value: number) => Math.round(value * 100) / 100;

function sqliteWrites(before: SqliteSnapshot | undefined, after: SqliteSnapshot, operations: number): SqliteWrites {
  const btrees: SqliteWrites['btrees'] = {};
  let logical = 0;
  let rows = 0;
  for (const [name, now] of Object.entries(after.footprint)) {
    const was = before?.footprint[name] ?? { rows: 0, bytes: 0 };
    const addedRows = now.rows - was.rows;
    const addedBytes = now.bytes - was.bytes;
    logical += addedBytes;
    if (now.kind === 'table') rows += addedRows;
    if (addedRows !== 0 || addedBytes !== 0)
      btrees[name] = { kind: now.kind, table: now.table, rows: round(addedRows / operations), bytes: round(addedBytes / operations) };
  }
  return {
    physical_bytes: round((after.physicalBytes - (before?.physicalBytes ?? 0)) / operations),
    logical_bytes: round(logical / operations),
    table_rows: round(rows / operations),
    new_objects: after.objects - (before?.objects ?? 0),
    btrees,
  };
}

function difference(scenario: Scenario, before: StoreSnapshot, after: StoreSnapshot): ScenarioFigures {
  const n = scenario.operations;
  const perStore = (a: Record<string, SqliteSnapshot>, b: Record<string, SqliteSnapshot>) =>
    Object.fromEntries(Object.entries(b).map(([binding, snapshot]) => [binding, sqliteWrites(a[binding], snapshot, n)]));
  const r2: ScenarioFigures['r2'] = {};
  for (const [binding, bucket] of Object.entries(after.r2)) {
    const shapes: Record<string, { objects: number; bytes: number }> = {};
    let objects = 0;
    let bytes = 0;
    for (const [shape, now] of Object.entries(bucket.byShape)) {
      const was = before.r2[binding]?.byShape[shape] ?? { objects: 0, bytes: 0 };
      if (now.objects === was.objects && now.bytes === was.bytes) continue;
      shapes[shape] = { objects: round((now.objects - was.objects) / n), bytes: round((now.bytes - was.bytes) / n) };
      objects += now.objects - was.objects;
      bytes += now.bytes - was.bytes;
    }
    r2[binding] = { total: { objects: round(objects / n), bytes: round(bytes / n) }, ...shapes };
  }
  const queues = Object.fromEntries(
    Object.entries(after.queues).map(([binding, now]) => {
      const was = before.queues[binding] ?? { messages: 0, bytes: 0 };
      return [binding, { messages: round((now.messages - was.messages) / n), bytes: round((now.bytes - was.bytes) / n) }];
    }),
  );
  return {
    key: scenario.key,
    title: scenario.title,
    operations: n,
    d1: perStore(before.d1, after.d1),
    durable_objects: perStore(before.durableObjects, after.durableObjects),
    r2,
    queues,
    deferred: { jobs: 0, alarms: 0 },
  };
}

/** Runs operations from..to-1 of the scenario, `concurrency` at a time. */
async function runOperations(scenario: Scenario, project: TestProject, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += scenario.concurrency) {
    const batch = Array.from({ length: Math.min(scenario.concurrency, to - start) }, (_, k) => scenario.run(project, start + k));
    await Promise.all(batch);
  }
}

export interface Measurement {
  figures: ScenarioFigures;
  /** Operations run (warm-up included), and how many the owner's listing shows once they settled. */
  ran: number;
  listed: number;
}

/** Settles the scenario's operations: their own work, the listing showing them all, every outbox drained. */
async function settle(scenario: Scenario, project: TestProject, ran: number): Promise<number> {
  await scenario.settle?.(project, ran);
  const listed = await countReaching(() => scenario.listed(project), ran);
  await drainToSteadyState();
  return listed;
}

export async function measureScenario(scenario: Scenario): Promise<Measurement> {
  const project = await scenario.setup();
  const names = { [project.service_id]: '{service}', [project.owner_id]: '{owner}' };
  const ran = WARM_UP_OPERATIONS + scenario.operations;
  await runOperations(scenario, project, 0, WARM_UP_OPERATIONS);
  await settle(scenario, project, WARM_UP_OPERATIONS);
  const before = await snapshotStores(names);
  await runOperations(scenario, project, WARM_UP_OPERATIONS, ran);
  const listed = await settle(scenario, project, ran);
  const deferred = { ...steadyStateRuns };
  const after = await snapshotStores(names);
  return { figures: { ...difference(scenario, before, after), deferred }, ran, listed };
}
