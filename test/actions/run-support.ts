import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach } from 'vitest';
import { call, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

export const consumePost = (project: TestProject, ticketId: string, body: unknown = {}, token?: string) =>
  call('POST', `/${token ? 'tpa' : 'tp'}/${project.service_id}/${ticketId}`, {
    body,
    token,
    headers: { 'cf-connecting-ip': '203.0.113.9', 'user-agent': 'test-agent' },
  });

/**
 * Runs the object's alarm until no continuation is due or running and the log outbox is empty. While
 * continuations run, it only waits: the alarm that started them is still going and exports after them.
 */
export async function settle(project: TestProject, ticketId: string): Promise<void> {
  const stub = ticketStub(env, project.service_id, ticketId);
  for (let round = 0; round < 2_000; round++) {
    const continuations = (await stub.scheduledJobs()).filter((job) => job.kind === 'continuation');
    const running = continuations.some((job) => job.running);
    const due = continuations.some((job) => !job.running && job.run_at <= Date.now());
    if (!running && !due && (await stub.pendingLogCount()) === 0) return;
    if (running || !(await runDurableObjectAlarm(stub))) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the ticket object did not settle: ${JSON.stringify(await stub.scheduledJobs())}`);
}

export interface LoggedConsumption {
  consume_id: string;
  failed: number;
  code: string | null;
  description: any;
  actions: { seq: number; path: string; act: string; detail: any }[];
}

/** The ticket's consumption log rows (newest last) with their action rows. */
export async function loggedConsumptions(project: TestProject, ticketId: string): Promise<LoggedConsumption[]> {
  const entries = await ticketStub(env, project.service_id, ticketId).logEntries();
  return entries
    .filter((entry) => entry.is_check === 0)
    .map((entry) => ({
      consume_id: entry.consume_id,
      failed: entry.failed,
      code: entry.code,
      description: JSON.parse(entry.description),
      actions: entry.actions.map((a) => ({ seq: a.seq, path: a.path, act: a.act, detail: JSON.parse(a.detail) })),
    }));
}

export const accessGroupOf = async (project: TestProject, userId: string) =>
  (
    await env.DB.prepare('SELECT access_group FROM users WHERE service_id = ? AND user_id = ?')
      .bind(project.service_id, userId)
      .first<{ access_group: number }>()
  )?.access_group;

export const remainingOf = async (project: TestProject, ticketId: string) => (await ticketStub(env, project.service_id, ticketId).status()).remaining;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The metrics jobs (issue 37) come with every consumption: a test of other jobs leaves them out. */
const METRIC_JOBS = new Set(['flush-metrics', 'report-metrics']);
export const withoutMetricJobs = <T extends { kind: string }>(jobs: T[]): T[] => jobs.filter((job) => !METRIC_JOBS.has(job.kind));

/** The jobs of one kind in the ticket's object. */
export const jobsOf = async (project: TestProject, ticketId: string, kind: string) =>
  (await ticketStub(env, project.service_id, ticketId).scheduledJobs()).filter((job) => job.kind === kind);

/** Waits (at most 5 s) until no job of the kind runs: one waits for its time (true), or none is left (false). */
export async function untilIdle(project: TestProject, ticketId: string, kind = 'continuation'): Promise<boolean> {
  for (const until = Date.now() + 5_000; Date.now() < until; ) {
    const jobs = await jobsOf(project, ticketId, kind);
    if (jobs.length === 0) return false;
    if (!jobs.some((job) => job.running)) return true;
    await sleep(10);
  }
  throw new Error(`the ${kind} job kept running`);
}

/** Makes the waiting jobs of the kind due now and fires the alarm, as the alarm would at their time. */
export async function dueNow(project: TestProject, ticketId: string, kind = 'continuation'): Promise<void> {
  const stub = ticketStub(env, project.service_id, ticketId);
  await runInDurableObject(stub, (_instance, state) => void state.storage.sql.exec('UPDATE jobs SET run_at = ? WHERE kind = ?', Date.now(), kind));
  // An object just restarted arms itself: the due job is started as it wakes, and no alarm is left to fire.
  if (!(await runDurableObjectAlarm(stub))) await stub.scheduledJobs();
}

/** Runs every step of the kind's jobs until none is left; answers how many times they were made due. */
export async function runJobs(project: TestProject, ticketId: string, kind = 'continuation'): Promise<number> {
  let made = 0;
  while (await untilIdle(project, ticketId, kind)) {
    if (++made > 40) throw new Error(`the ${kind} jobs did not end`);
    await dueNow(project, ticketId, kind);
  }
  await settle(project, ticketId);
  return made;
}

/**
 * A register function whose tickets are deleted after each test: no schedule, replay or hold outlives its
 * test (the suite's objects are shared, and a waiting job would fire later). Call at a test file's top.
 */
export function registersForEachTest(project: () => TestProject): (ticketId: string, ticket: Record<string, unknown>) => Promise<void> {
  const registered: string[] = [];
  afterEach(async () => {
    const { service_id, owner_key } = project();
    for (const ticketId of registered.splice(0)) await call('DELETE', `/v1/projects/${service_id}/tickets/${ticketId}`, { token: owner_key });
  });
  return async (ticketId, ticket) => {
    registered.push(ticketId);
    await registerTicket(project(), ticketId, ticket);
  };
}
