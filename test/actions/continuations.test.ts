/**
 * Runs that go on after resp '0m' go on at once, concurrently: one slow continuation never holds
 * another back. The destination (test/loopback-server.ts /gate) holds each request until the test
 * opens the gate, so "both are at the destination at the same time" is observed, not timed.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ticketStub } from '../../durable-objects/ticket-do';
import { createProject, registerTicket, type TestProject } from '../helpers/api';
import { consumePost, loggedConsumptions, settle } from './run-support';

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
      actions: [{ act: 'resp', exe: { body: 'accepted', resume: '0m' } }, { act: 'req', exe: { url: `${origin}/gate/hold/${gate}` } }],
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
    expect(await ticketStub(env, project.service_id, 'overlap').scheduledJobs()).toEqual([]);
  });

  it('a started continuation holds its job under a lease, so the alarm does not start it twice', async () => {
    const gate = crypto.randomUUID();
    await registerTicket(project, 'leased', {
      actions: [{ act: 'resp', exe: { resume: '0m' } }, { act: 'req', exe: { url: `${origin}/gate/hold/${gate}` } }],
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
