/**
 * cancel removes a pending request and ends a running one (its connection closes, nothing is stored after);
 * a second cancel removes nothing; withdraw removes only a waiting request; the queue count follows; a
 * request with `expires` is gone after that time (poll 404, history omits it).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/api';
import {
  cancel,
  eventually,
  forward,
  heldAtGate,
  history,
  loopback,
  origin,
  poll,
  queueCount,
  received,
  settledEnvelope,
  uniquePath,
  withdraw,
} from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const NOT_FOUND = { code: 'NOT_FOUND', message: 'Request not found.' };

describe('cancel', () => {
  it('removes a pending request (never sent) and a second cancel answers removed false', async () => {
    const gate = crypto.randomUUID();
    const headUrl = `${origin}/gate/hold/${gate}`;
    await forward(project, { url: headUrl, method: 'GET', queue: 'c1' });
    const path = uniquePath('/echo');
    const url = `${origin}${path}`;
    const waiting = await forward(project, { url, method: 'GET', queue: 'c1' });
    await heldAtGate(gate);
    expect((await queueCount(project, 'c1')).json.in_queue).toBe(2);

    const address = { id: waiting.json.id, url, method: 'GET' };
    expect((await cancel(project, address)).json).toEqual({ removed: true, message: 'The request was removed from its queue.' });
    expect((await queueCount(project, 'c1')).json.in_queue).toBe(1);
    expect((await cancel(project, address)).json).toEqual({ removed: false, message: 'Request not found.' });
    expect((await poll(project, address)).json).toMatchObject({ code: 'NOT_FOUND', message: 'Request not found.' });

    await loopback(`/gate/open/${gate}`);
    await eventually('the queue is empty', async () => (await queueCount(project, 'c1')).json.in_queue === 0);
    expect(await received(path)).toBe(0);
    await eventually('the history omits it', async () => (await history(project, { url, method: 'GET' })).json.list.length === 0);
  });

  it('ends a running request: the destination connection closes and nothing is stored after', async () => {
    const gate = crypto.randomUUID();
    const url = `${origin}/gate/hold/${gate}`;
    const running = await forward(project, { url, method: 'GET', queue: 'c2' });
    await heldAtGate(gate);
    const address = { id: running.json.id, url, method: 'GET' };
    expect((await poll(project, address)).json.status).toBe('running');
    expect((await cancel(project, address)).json).toEqual({ removed: true, message: 'The running request was cancelled.' });
    // The gate lets go of a request whose caller closed the connection.
    await eventually('the destination connection closed', async () => (await loopback(`/gate/waiting/${gate}`)).waiting === 0);
    expect((await cancel(project, address)).json).toEqual({ removed: false, message: 'Request not found.' });
    expect((await poll(project, address)).status).toBe(404);
    // The queue goes on: a later request of it runs, and the cancelled one stays gone.
    const afterUrl = `${origin}${uniquePath('/echo')}`;
    const after = await forward(project, { url: afterUrl, method: 'GET', queue: 'c2' });
    expect(await settledEnvelope(project, { id: after.json.id, url: afterUrl, method: 'GET' })).toMatchObject({ status: 'resolved' });
    await eventually('the history omits it', async () => (await history(project, { url, method: 'GET' })).json.list.length === 0);
    expect((await poll(project, address)).status).toBe(404);
    expect(await received(`/gate/hold/${gate}`)).toBe(1);
  });

  it('a cancel of an unknown id and of another caller\u2019s id removes nothing', async () => {
    const url = `${origin}${uniquePath('/echo')}`;
    const mine = await forward(project, { url, method: 'GET', queue: 'c3' });
    await settledEnvelope(project, { id: mine.json.id, url, method: 'GET' });
    const stranger = { headers: { 'cf-connecting-ip': '198.51.100.9' } };
    expect((await cancel(project, { id: mine.json.id, url, method: 'GET' }, stranger)).json).toEqual({ removed: false, message: 'Request not found.' });
    expect((await cancel(project, { id: '1a:AAAAAAAAAAAAAAAA', url, method: 'GET' })).json).toEqual({ removed: false, message: 'Request not found.' });
    expect((await cancel(project, { id: mine.json.id, url, method: 'GET' })).json).toEqual({ removed: false, message: 'The request already settled.' });
  });
});

describe('withdraw', () => {
  it('removes a waiting request but leaves a running one', async () => {
    const gate = crypto.randomUUID();
    const headUrl = `${origin}/gate/hold/${gate}`;
    const head = await forward(project, { url: headUrl, method: 'GET', queue: 'w1' });
    const url = `${origin}${uniquePath('/echo')}`;
    const waiting = await forward(project, { url, method: 'GET', queue: 'w1' });
    await heldAtGate(gate);
    expect((await withdraw(project, { id: head.json.id, url: headUrl, method: 'GET' })).json).toEqual({
      removed: false,
      message: 'The request is running; only a waiting request is withdrawn.',
    });
    expect((await withdraw(project, { id: waiting.json.id, url, method: 'GET' })).json).toEqual({
      removed: true,
      message: 'The request was removed from its queue.',
    });
    expect((await queueCount(project, 'w1')).json.in_queue).toBe(1);
    await loopback(`/gate/open/${gate}`);
    expect(await settledEnvelope(project, { id: head.json.id, url: headUrl, method: 'GET' })).toMatchObject({ status: 'resolved' });
  });
});

describe('expires', () => {
  it('a queued request with expires 1 is gone after it: poll 404, history omits it', async () => {
    const url = `${origin}${uniquePath('/echo')}`;
    const res = await forward(project, { url, method: 'GET', queue: 'e1', expires: 1 });
    const address = { id: res.json.id, url, method: 'GET' };
    await eventually('the request expired', async () => (await poll(project, address)).status === 404);
    expect((await poll(project, address)).json).toMatchObject(NOT_FOUND);
    expect((await history(project, { url, method: 'GET' })).json.list).toEqual([]);
  });

  it('a direct request with expires 1 is gone after it: poll 404, history omits it', async () => {
    const url = `${origin}${uniquePath('/echo')}`;
    const res = await forward(project, { url, method: 'GET', expires: 1 });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-svc-request-id')!;
    await eventually('the request expired', async () => (await poll(project, { id, url, method: 'GET' })).status === 404);
    expect((await history(project, { url, method: 'GET' })).json.list).toEqual([]);
  });
});
