/**
 * A caller's queue runs its requests strictly one at a time in the order they were dispatched; different
 * queues run side by side; a poll answers pending / running (with executed) / resolved / failed; a
 * destination's error status is an answer; the key's Destinations are judged again right before sending.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { forward, heldAtGate, loopback, origin, poll, queueCount, received, settledEnvelope, uniquePath } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const gateUrl = (key: string) => `${origin}/gate/hold/${key}`;

describe('one queue', () => {
  it('20 concurrent dispatches run in dispatch order with at most one in flight', async () => {
    const gate = crypto.randomUUID();
    const seq = crypto.randomUUID();
    // A held head keeps the 20 waiting, so the place each is given (in_queue) is its dispatch order.
    const head = await forward(project, { url: gateUrl(gate), method: 'GET', queue: 'order' });
    await heldAtGate(gate);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => forward(project, { url: `${origin}/seq/${seq}/${n}`, method: 'GET', queue: 'order' })),
    );
    for (const res of answers) expect(res.json.status, res.text).toBe('pending');
    const places = answers.map((res) => res.json.in_queue as number);
    expect([...places].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect((await queueCount(project, 'order')).json).toEqual({ queue_name: 'order', in_queue: 21 });
    expect((await poll(project, { id: head.json.id, url: gateUrl(gate), method: 'GET' })).json).toMatchObject({ status: 'running', in_queue: 1 });

    await loopback(`/gate/open/${gate}`);
    const last = answers[places.indexOf(21)];
    expect(await settledEnvelope(project, { id: last.json.id, url: `${origin}/seq/${seq}/${places.indexOf(21)}`, method: 'GET' })).toMatchObject({
      status: 'resolved',
    });
    const state = await loopback(`/seq-state/${seq}`);
    const dispatchOrder = places
      .map((place, n) => [place, n])
      .sort((a, b) => a[0] - b[0])
      .map(([, n]) => n);
    expect(state).toEqual({ order: dispatchOrder, inFlight: 0, maxInFlight: 1 });
    expect((await queueCount(project, 'order')).json.in_queue).toBe(0);
  });

  it('polls pending, then running with executed, then resolved with the answer; a 404 from the destination is an answer', async () => {
    const gate = crypto.randomUUID();
    const first = await forward(project, { url: gateUrl(gate), method: 'GET', queue: 'states' });
    const url = `${origin}/echo-status/404`;
    const second = await forward(project, { url, method: 'GET', queue: 'states' });
    expect(second.json).toMatchObject({ status: 'pending', queue_name: 'states', in_queue: 2 });
    await heldAtGate(gate);
    const running = (await poll(project, { id: first.json.id, url: gateUrl(gate), method: 'GET' })).json;
    expect(running).toMatchObject({ status: 'running', in_queue: 1 });
    expect(running.executed).toBeGreaterThanOrEqual(running.created);
    expect((await poll(project, { id: second.json.id, url, method: 'GET' })).json).toMatchObject({ status: 'pending', in_queue: 2 });
    await loopback(`/gate/open/${gate}`);
    const done = await settledEnvelope(project, { id: second.json.id, url, method: 'GET' });
    expect(done).toMatchObject({ status: 'resolved', status_code: 404, in_queue: 0, response_body: { path: '/echo-status/404' } });
    expect(await settledEnvelope(project, { id: first.json.id, url: gateUrl(gate), method: 'GET' })).toMatchObject({
      status: 'resolved',
      response_body: { released: true },
    });
  });

  it('a request that cannot be sent settles failed with its reason, and the next one runs', async () => {
    const url = `${origin}/huge`;
    const failing = await forward(project, { url, method: 'GET', queue: 'fails' });
    const next = await forward(project, { url: `${origin}/echo/after-fail`, method: 'GET', queue: 'fails' });
    expect(await settledEnvelope(project, { id: failing.json.id, url, method: 'GET' })).toMatchObject({ status: 'failed', error: { code: 'REQUEST_FAILED' } });
    expect(await settledEnvelope(project, { id: next.json.id, url: `${origin}/echo/after-fail`, method: 'GET' })).toMatchObject({ status: 'resolved' });
  });
});

describe('two queues', () => {
  it('run side by side: a request of one resolves while the other queue is held', async () => {
    const gate = crypto.randomUUID();
    const held = await forward(project, { url: gateUrl(gate), method: 'GET', queue: 'side-a' });
    await heldAtGate(gate);
    const url = `${origin}${uniquePath('/echo')}`;
    const other = await forward(project, { url, method: 'GET', queue: 'side-b' });
    expect(await settledEnvelope(project, { id: other.json.id, url, method: 'GET' })).toMatchObject({ status: 'resolved' });
    expect((await poll(project, { id: held.json.id, url: gateUrl(gate), method: 'GET' })).json.status).toBe('running');
    await loopback(`/gate/open/${gate}`);
    expect(await settledEnvelope(project, { id: held.json.id, url: gateUrl(gate), method: 'GET' })).toMatchObject({ status: 'resolved' });
  });
});

describe('Destinations judged again before sending', () => {
  it('a request waiting behind a held one fails with the destination refusal when the key is narrowed meanwhile; nothing is sent', async () => {
    const path = uniquePath('/echo');
    const url = `${origin}${path}`;
    await putSecret(project, 'narrowed', 'sk_narrowed_1', { destinations: [origin] });
    const gate = crypto.randomUUID();
    await forward(project, { url: gateUrl(gate), method: 'GET', queue: 'recheck' });
    const waiting = await forward(project, { url, method: 'GET', queue: 'recheck', secretName: 'narrowed', headers: { 'x-key': '$CLIENT_SECRET' } });
    expect(waiting.json.status).toBe('pending');
    await heldAtGate(gate);
    await putSecret(project, 'narrowed', 'sk_narrowed_1', { destinations: [`${origin}/elsewhere`] });
    await loopback(`/gate/open/${gate}`);
    expect(await settledEnvelope(project, { id: waiting.json.id, url, method: 'GET' })).toMatchObject({
      status: 'failed',
      error: { code: 'INVALID_REQUEST', message: 'Destination is not allowed for this client secret.' },
    });
    expect(await received(path)).toBe(0);
  });
});
