/**
 * Waits until no Durable Object of any namespace bound in `env` has work pending that would still write
 * somewhere (a log or history outbox on its way to D1 or R2, a job due soon), so what a scenario wrote is
 * all in place before the stores are read. Polled, never slept through blindly; bounded.
 *
 * An object is settled when:
 *   - it answers `pendingLogCount()` (TicketDO) with 0, when it has that method;
 *   - none of its `scheduledJobs()` (TicketDO) is due within DUE_SOON_MS, when it has that method;
 *   - every table of its SQLite whose name holds "outbox" is empty, and its `jobs` table (the JobTable
 *     every object uses) holds no job due within DUE_SOON_MS, when it has those tables;
 *   - its alarm is unset or set past DUE_SOON_MS.
 * A job due later (a request's expiry, a running request's lease) is not work a scenario waits for.
 *
 * Steady state: some work is deliberately deferred (a forward object moves a settled stream's pieces to
 * R2, and the bodies of settled history rows into R2 segments, a minute after they settle). Waiting a
 * real minute per scenario would not fit the test's time, so once every object is settled, each job of
 * an object's `jobs` table due within STEADY_STATE_MS is made due now (its `run_at` set to the present:
 * what the clock does when that time comes; the jobs' handlers compare `run_at` with `Date.now()`) and
 * the object's alarm is run at once with `runDurableObjectAlarm`, exactly as the runtime would run it
 * then; repeated until no object has such a job. No product code is changed or called directly.
 */
import { env, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';

const DUE_SOON_MS = 30_000;
/** Deferred work due within this long is brought forward (the forward object's moves wait 60 s). */
export const STEADY_STATE_MS = 120_000;
const POLL_MS = 50;

interface PendingMethods {
  pendingLogCount?: () => Promise<number>;
  scheduledJobs?: () => Promise<{ run_at: number }[]>;
}

const namespaces = () =>
  Object.entries(env as unknown as Record<string, unknown>).filter(
    (entry): entry is [string, DurableObjectNamespace] =>
      typeof entry[1] === 'object' && entry[1] !== null && entry[1].constructor?.name === 'DurableObjectNamespace',
  );

/** What keeps the object busy, or null when it is settled. */
async function pendingIn(stub: DurableObjectStub): Promise<string | null> {
  return runInDurableObject(stub, async (object: unknown, state: DurableObjectState) => {
    const instance = object as PendingMethods;
    const soon = Date.now() + DUE_SOON_MS;
    if (typeof instance.pendingLogCount === 'function' && (await instance.pendingLogCount()) > 0) return 'log rows in its outbox';
    if (typeof instance.scheduledJobs === 'function' && (await instance.scheduledJobs()).some((job) => job.run_at <= soon)) return 'a job due soon';
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((t) => t.name);
    for (const table of tables.filter((name) => name.includes('outbox'))) {
      if (sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`).one().n > 0) return `rows in ${table}`;
    }
    if (tables.includes('jobs') && sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE run_at <= ?', soon).one().n > 0) return 'a job due soon';
    const alarm = await state.storage.getAlarm();
    return alarm !== null && alarm <= soon ? 'an alarm due soon' : null;
  });
}

/** Makes the object's jobs due within STEADY_STATE_MS due now; answers how many. */
async function bringForward(stub: DurableObjectStub): Promise<number> {
  return runInDurableObject(stub, async (_object: unknown, state: DurableObjectState) => {
    const sql = state.storage.sql;
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").toArray().length === 0) return 0;
    const now = Date.now();
    return sql.exec<{ id: number }>('UPDATE jobs SET run_at = ? WHERE run_at > ? AND run_at <= ? RETURNING id', now, now, now + STEADY_STATE_MS).toArray()
      .length;
  });
}

/** Jobs brought forward and alarms run, across every object, by the last drainToSteadyState. */
export const steadyStateRuns = { jobs: 0, alarms: 0 };

/**
 * Settles every object (drainDurableObjects), then runs the work deferred by up to STEADY_STATE_MS as
 * its time would come (see the file's comment), and settles again; until nothing deferred is left.
 */
export async function drainToSteadyState(ms = 20_000, rounds = 10): Promise<void> {
  steadyStateRuns.jobs = 0;
  steadyStateRuns.alarms = 0;
  for (let round = 0; round < rounds; round++) {
    await drainDurableObjects(ms);
    let advanced = 0;
    for (const [, namespace] of namespaces()) {
      for (const id of await listDurableObjectIds(namespace)) {
        const stub = namespace.get(id);
        const jobs = await bringForward(stub);
        if (jobs === 0) continue;
        advanced += jobs;
        steadyStateRuns.jobs += jobs;
        if (await runDurableObjectAlarm(stub)) steadyStateRuns.alarms++;
      }
    }
    if (advanced === 0) return;
  }
  throw new Error(`deferred work was still being scheduled after ${rounds} rounds`);
}

/** Resolves once every object is settled; throws after `ms` naming what is still pending. */
export async function drainDurableObjects(ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    let busy: string | null = null;
    for (const [binding, namespace] of namespaces()) {
      for (const id of await listDurableObjectIds(namespace)) {
        const pending = await pendingIn(namespace.get(id));
        if (pending) busy = `${binding} ${id.toString().slice(0, 8)}…: ${pending}`;
      }
    }
    if (busy === null) return;
    if (Date.now() > until) throw new Error(`stores did not settle within ${ms} ms: ${busy}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
