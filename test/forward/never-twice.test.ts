/**
 * A request is never sent twice: one running when its queue's object instance dies settles failed with
 * the interrupted reason, is not sent again by the new instance, and the next request of the queue runs.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/api';
import { forward, heldAtGate, loopback, origin, received, settledEnvelope, uniquePath } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

describe('a runner killed mid-request', () => {
  it('fails the running request as interrupted, never sends it again, and runs the next one', async () => {
    const gate = crypto.randomUUID();
    const heldUrl = `${origin}/gate/hold/${gate}`;
    const held = await forward(project, { url: heldUrl, method: 'GET', queue: 'killed' });
    const nextPath = uniquePath('/echo');
    const next = await forward(project, { url: `${origin}${nextPath}`, method: 'GET', queue: 'killed' });
    await heldAtGate(gate);

    // Resets every object instance (storage kept), as a crash or a deploy would.
    await abortAllDurableObjects();

    expect(await settledEnvelope(project, { id: held.json.id, url: heldUrl, method: 'GET' })).toMatchObject({
      status: 'failed',
      error: { code: 'REQUEST_FAILED', message: 'The request was interrupted while it was running (its runner stopped); it was not sent again.' },
    });
    expect(await settledEnvelope(project, { id: next.json.id, url: `${origin}${nextPath}`, method: 'GET' })).toMatchObject({ status: 'resolved' });
    // Whatever the killed instance left open is released now: had the request been sent again, a second copy would be counted.
    await loopback(`/gate/open/${gate}`);
    expect(await received(`/gate/hold/${gate}`)).toBe(1);
    expect(await received(nextPath)).toBe(1);
  });
});
