/**
 * Bad input (issue 33): a queued request whose run throws on every try (here its stored plan cannot be
 * read) is settled as failed after a bounded number of tries, never sent, and the queue goes on.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RETRY } from '../../durable-objects/job-alarm';
import { createProject, type TestProject } from '../helpers/api';
import { driveTries } from '../helpers/job-tries';
import { forward, heldAtGate, loopback, origin, poll, queueCount, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'standard' });
});

describe('a queued request whose run fails on every try', () => {
  it('is settled as failed after RETRY.tries tries, never sent, and the requests behind it run', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const gate = crypto.randomUUID();
    const key = crypto.randomUUID();
    await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'POST', queue: 'bad-input' });
    await heldAtGate(gate);
    const sent: { id: string; url: string; method: string }[] = [];
    for (let n = 0; n < 3; n++) {
      const res = await forward(project, { url: `${origin}/seq/${key}/${n}`, method: 'GET', queue: 'bad-input' });
      expect(res.status).toBe(200);
      sent.push({ id: res.json.id as string, url: `${origin}/seq/${key}/${n}`, method: 'GET' });
    }
    const stub = forwardQueueStub(env, await visitorOwner(project));
    await runInDurableObject(stub, (_instance, state) => void state.storage.sql.exec("UPDATE requests SET plan = 'not json' WHERE id = ?", sent[0].id));
    await fetch(`${origin}/gate/open/${gate}`);

    const bad = async () => (await poll(project, sent[0])).json;
    const tries = await driveTries(stub, 'run', async () => (await bad()).status === 'failed');
    expect(tries).toBe(RETRY.tries - 1);
    expect(await bad()).toMatchObject({
      status: 'failed',
      error: { code: 'REQUEST_FAILED', message: expect.stringMatching(/failed on every try.*it was not sent/) },
    });
    await vi.waitFor(async () => expect((await loopback(`/seq-state/${key}`)).order).toEqual([1, 2]), { timeout: 10_000, interval: 50 });
    await vi.waitFor(async () => expect((await queueCount(project, 'bad-input')).json.in_queue).toBe(0), { timeout: 10_000, interval: 50 });
    // The queue's job went on: nothing is left among the dead.
    expect(await stub.deadJobs()).toEqual([]);
  }, 30_000);
});
