/**
 * Runs that go on after resp '0m' go on at once, concurrently: one slow continuation never holds
 * another back. The destination (test/loopback-server.ts /gate) holds each request until the test
 * opens the gate, so "both are at the destination at the same time" is observed, not timed.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { failingDb } from './failing-db';
import { consumePost, loggedConsumptions, settle, withoutMetricJobs } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

const origin = inject('loopbackOrigin');
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

const waitingAt = async (gate: string) => ((await (await fetch(`${origin}/gate/waiting/${gate}`)).json()) as { waiting: number }).waiting;

/** Polls the gate until `count` requests wait there (bounded well under the 2 s outbound limit of the tests). */
async function untilWaiting(gate: string, count: number): Promise<number> {
  let seen = 0;
  for (let i = 0; i < 150 && seen < count; i++) {
    seen = await waitingAt(gate);
    if (seen < count) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return seen;
}

describe("resume '0m' continuations", () => {
  it('two slow continuations of one ticket overlap: the second reaches its destination while the first still waits there', async () => {
    const gate = crypto.randomUUID();
    await registerTicket(project, 'overlap', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/gate/hold/${gate}` } },
      ],
    });
    try {
      expect((await consumePost(project, 'overlap')).json).toBe('accepted');
      expect(await untilWaiting(gate, 1)).toBe(1);
      expect((await consumePost(project, 'overlap')).json).toBe('accepted');
      expect(await untilWaiting(gate, 2)).toBe(2);
    } finally {
      await fetch(`${origin}/gate/open/${gate}`);
    }
    await settle(project, 'overlap');
    const logged = await loggedConsumptions(project, 'overlap');
    expect(logged.map((row) => [row.failed, row.description.continuation?.finished !== undefined])).toEqual([
      [0, true],
      [0, true],
    ]);
    expect(withoutMetricJobs(await ticketStub(env, project.service_id, 'overlap').scheduledJobs())).toEqual([]);
  });

  it('a started continuation holds its job under a lease, so the alarm does not start it twice', async () => {
    const gate = crypto.randomUUID();
    await registerTicket(project, 'leased', {
      actions: [
        { act: 'resp', exe: { resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/gate/hold/${gate}` } },
      ],
    });
    try {
      await consumePost(project, 'leased');
      expect(await untilWaiting(gate, 1)).toBe(1);
      const [job] = (await ticketStub(env, project.service_id, 'leased').scheduledJobs()).filter((j) => j.kind === 'continuation');
      expect(job).toMatchObject({ running: true });
      expect(job.run_at).toBeGreaterThan(Date.now() + 20_000);
      expect(await waitingAt(gate)).toBe(1);
    } finally {
      await fetch(`${origin}/gate/open/${gate}`);
    }
    await settle(project, 'leased');
    const [logged] = await loggedConsumptions(project, 'leased');
    expect(logged.actions.map((a) => a.path)).toEqual(['actions[0]', 'actions[1]']);
  });
});

describe('the log export failing while continuations run', () => {
  it("stops neither the runs nor the taking up of new ones; signed-in consumptions reach the user's listing once D1 is back", async () => {
    const gate = crypto.randomUUID();
    await registerTicket(project, 'export-fails', {
      actions: [
        { act: 'resp', exe: { resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/gate/hold/${gate}` } },
      ],
    });
    const stub = ticketStub(env, project.service_id, 'export-fails');
    const realDb = env.DB;
    const setDb = (db: D1Database) => runInDurableObject(stub, (instance) => void ((instance as unknown as { env: { DB: D1Database } }).env.DB = db));
    const user = await mintUser(project);
    const consume = () => call('POST', `/tpa/${project.service_id}/export-fails`, { token: user.id_token, body: {} });
    try {
      await consume();
      expect(await untilWaiting(gate, 1)).toBe(1);
      // From now on the object's export to D1 (the per-user index) fails, while the first run still waits at the gate.
      await setDb(failingDb(realDb, /user_consumptions/));
      await consume();
      expect(await untilWaiting(gate, 2)).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 400)); // the consumptions fall due for export, which fails
      expect(await stub.pendingLogCount()).toBeGreaterThan(0);
      await consume();
      expect(await untilWaiting(gate, 3)).toBe(3);
      await fetch(`${origin}/gate/open/${gate}`);
      await untilNoContinuation(stub);
    } finally {
      await fetch(`${origin}/gate/open/${gate}`);
      await setDb(realDb);
    }
    await settle(project, 'export-fails');
    const logged = await loggedConsumptions(project, 'export-fails');
    expect(logged.map((row) => [row.failed, row.description.continuation?.finished !== undefined])).toEqual([
      [0, true],
      [0, true],
      [0, true],
    ]);
    const own = await call('GET', `/v1/projects/${project.service_id}/consumed?ticket_id=export-fails`, { token: user.id_token });
    expect(own.json.list.map((row: { consume_id: string }) => row.consume_id).sort()).toEqual(logged.map((row) => row.consume_id).sort());
  });
});

/** Waits (bounded) until no continuation job is left: each run finished and deleted its job. */
async function untilNoContinuation(stub: ReturnType<typeof ticketStub>) {
  for (let i = 0; i < 300; i++) {
    if (!(await stub.scheduledJobs()).some((job) => job.kind === 'continuation')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`continuations did not finish: ${JSON.stringify(await stub.scheduledJobs())}`);
}
