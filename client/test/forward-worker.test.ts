import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Svc, type ForwardStatusObject } from '../src/index.js';
import { json, startScriptedServer, type RecordedRequest, type ScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';
import { rejection } from './helpers/rejection.js';

// The forwarding methods against the real Worker (`wrangler dev`), relaying to a loopback destination
// this test runs, which records what arrived.
let worker: ProjectOnWorker;
let dest: ScriptedServer;
let svc: Svc;
const SECRET = 'sk-live-0123456789abcdef';

beforeAll(async () => {
  dest = await startScriptedServer();
  worker = await createTestProject();
  svc = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url });
  await worker.putSecretKey('dest-key', { value: SECRET, destinations: [`${dest.url}/api`] });
});

afterAll(async () => {
  await dest?.close();
});

beforeEach(() => {
  dest.requests.length = 0;
  dest.handle((_req, res) => json(res, 200, { ok: true }));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds every request that arrives until released, answering each with its own path. */
function holdingDestination() {
  const held: Array<{ req: RecordedRequest; res: ServerResponse }> = [];
  dest.handle((req, res) => held.push({ req, res }));
  return {
    held,
    releaseAll() {
      for (const { req, res } of held.splice(0)) json(res, 200, { path: req.url });
    },
  };
}

describe('direct forwarding', () => {
  it("resolves with the destination's JSON body and calls onResponse with it alone", async () => {
    dest.handle((_req, res) => json(res, 200, { greeting: 'hi', n: [1, 2] }));
    const calls: unknown[][] = [];
    const value = await svc.forwardRequest({ name: 'Ada' }, { url: `${dest.url}/api/greet`, onResponse: (...args: unknown[]) => calls.push(args) });
    expect(value).toEqual({ greeting: 'hi', n: [1, 2] });
    expect(calls).toEqual([[{ greeting: 'hi', n: [1, 2] }]]);
    expect(dest.requests).toHaveLength(1);
    expect(dest.requests[0]).toMatchObject({ method: 'POST', url: '/api/greet' });
    expect(JSON.parse(dest.requests[0].body)).toEqual({ name: 'Ada' });
  });

  it('resolves with text when the body is not JSON, and a GET form goes to the query string', async () => {
    dest.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('plain answer'));
    expect(await svc.forwardRequest({ q: 'otters', page: '2' }, { url: `${dest.url}/api/search`, method: 'GET' })).toBe('plain answer');
    expect(dest.requests[0]).toMatchObject({ method: 'GET', url: '/api/search?q=otters&page=2', body: '' });
  });

  it("relays the destination's 404 as an answer, not a failure", async () => {
    dest.handle((_req, res) => json(res, 404, { error: 'no such thing' }));
    expect(await svc.forwardRequest(null, { url: `${dest.url}/api/missing`, method: 'GET' })).toEqual({ error: 'no such thing' });
  });

  it('substitutes the Secret Key in a header server side, and redacts it from what comes back', async () => {
    dest.handle((req, res) => json(res, 200, { echoed: req.headers.authorization }));
    const value = await svc.forwardRequest(null, { url: `${dest.url}/api/echo`, secretName: 'dest-key', headers: { Authorization: 'Bearer $CLIENT_SECRET' } });
    expect(dest.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(value).toEqual({ echoed: 'Bearer $CLIENT_SECRET' });
  });

  it("a url outside the key's Destinations is refused with INVALID_REQUEST and nothing arrives", async () => {
    const err = await rejection(
      svc.forwardRequest(null, { url: `${dest.url}/elsewhere`, secretName: 'dest-key', headers: { Authorization: 'Bearer $CLIENT_SECRET' } }),
    );
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: 'Destination is not allowed for this client secret.' });
    expect(dest.requests).toHaveLength(0);
  });

  it('an x-svc- header is refused by the client before sending, and by the server when sent anyway', async () => {
    expect((await rejection(svc.forwardRequest(null, { url: `${dest.url}/api`, headers: { 'X-Svc-User': 'admin' } }))).code).toBe('INVALID_PARAMETER');
    const raw = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${dest.url}/api`, headers: { 'x-SVC-service': 'other' } }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(dest.requests).toHaveLength(0);
  });

  it('svcHeaders sends the verified user id and the service; a visitor gets no x-svc-user at all', async () => {
    const user = await worker.mintUser();
    const signedIn = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: user.id_token });
    await signedIn.forwardRequest(null, { url: `${dest.url}/api/who`, svcHeaders: true });
    await svc.forwardRequest(null, { url: `${dest.url}/api/who`, svcHeaders: true });
    await signedIn.forwardRequest(null, { url: `${dest.url}/api/who`, svcHeaders: { service: true } });
    const [mine, visitor, serviceOnly] = dest.requests.map((req) => req.headers);
    expect(mine['x-svc-user']).toBe(user.user_id);
    expect(mine['x-svc-service']).toBe(worker.project.service_id);
    expect(visitor['x-svc-user']).toBeUndefined();
    expect(visitor['x-svc-service']).toBe(worker.project.service_id);
    expect(serviceOnly['x-svc-user']).toBeUndefined();
    expect(serviceOnly['x-svc-service']).toBe(worker.project.service_id);
  });

  it('multipart relays the form bytes exactly as the client serialized them', async () => {
    const form = new FormData();
    form.append('title', 'Grüße');
    form.append('file', new File([new Uint8Array([0, 255, 1, 254, 13, 10])], 'raw.bin', { type: 'application/octet-stream' }));
    await svc.forwardRequest(form, { url: `${dest.url}/api/upload`, multipart: true });
    const [arrived] = dest.requests;
    const boundary = /boundary=(.+)$/.exec(String(arrived.headers['content-type']))![1];
    const reference = new Response(form);
    const referenceBoundary = /boundary=(.+)$/.exec(reference.headers.get('content-type') ?? '')![1];
    const normalize = (bytes: Buffer, b: string) => bytes.toString('latin1').split(b).join('BOUNDARY');
    expect(normalize(arrived.bytes, boundary)).toBe(normalize(Buffer.from(await reference.arrayBuffer()), referenceBoundary));
  });
});

describe('queued forwarding', () => {
  it('requests of one queue run one at a time in the order they were made, and their polls resolve in that order', async () => {
    let inFlight = 0;
    let peak = 0;
    dest.handle((req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        json(res, 200, { n: JSON.parse(req.body).n });
      }, 60);
    });
    const statuses: ForwardStatusObject[] = [];
    for (let n = 0; n < 5; n++) statuses.push(await svc.forwardRequest({ n }, { url: `${dest.url}/api/ordered`, queue: 'ordered' }));
    expect(statuses.map((s) => s.status)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
    const resolved: number[] = [];
    const results = await Promise.all(
      statuses.map((s) => s.poll<{ n: number }>({ latency: 50, onResponse: (res: { n: number }) => (resolved.push(res.n), res) })),
    );
    expect(results).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
    expect(resolved).toEqual([0, 1, 2, 3, 4]);
    expect(dest.requests.map((req) => JSON.parse(req.body).n)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(1);
  });

  it('poll > 0 generates a queue, polls at once and resolves with the final result; onResponse gets meta.executed', async () => {
    dest.handle((_req, res) => setTimeout(() => json(res, 201, { done: true }), 400));
    const metas: unknown[] = [];
    const value = await svc.forwardRequest(null, { url: `${dest.url}/api/slow`, poll: 50, onResponse: (res, meta) => (metas.push(meta), res) });
    expect(value).toEqual({ done: true });
    expect(metas).toHaveLength(1);
    expect((metas[0] as { executed?: number }).executed).toEqual(expect.any(Number));
  });

  it("poll 0 resolves the status object; poll() later resolves the destination's body", async () => {
    const status = await svc.forwardRequest({ a: 1 }, { url: `${dest.url}/api/later`, queue: 'later' });
    expect(status).toMatchObject({ status: 'pending', queue_name: 'later', in_queue: expect.any(Number) });
    expect(status.id).toMatch(/^[0-9A-Za-z]+:[0-9A-Za-z]+$/);
    expect(await status.poll({ latency: 50 })).toEqual({ ok: true });
  });

  it('queue count answers the unresolved requests of the queue; cancel removes a waiting one, which never arrives, and a second cancel removes nothing', async () => {
    const hold = holdingDestination();
    const first = await svc.forwardRequest(null, { url: `${dest.url}/api/first`, queue: 'cancel-q' });
    const second = await svc.forwardRequest(null, { url: `${dest.url}/api/second`, queue: 'cancel-q' });
    expect([first.in_queue, second.in_queue]).toEqual([1, 2]);
    await expect.poll(() => hold.held.length, { timeout: 10_000 }).toBe(1);
    expect(await svc.forwardRequestQueueCount({ queue: 'cancel-q' })).toEqual({ queue_name: 'cancel-q', in_queue: 2 });
    const removed = await svc.cancelForwardRequest({ url: `${dest.url}/api/second`, method: 'POST', id: second.id, queue: 'cancel-q' });
    expect(removed).toEqual({ removed: true, message: 'The request was removed from its queue.' });
    expect(await svc.forwardRequestQueueCount({ queue: 'cancel-q' })).toEqual({ queue_name: 'cancel-q', in_queue: 1 });
    hold.releaseAll();
    expect(await first.poll({ latency: 50 })).toEqual({ path: '/api/first' });
    await sleep(300);
    expect(dest.requests.map((req) => req.url)).toEqual(['/api/first']);
    const again = await svc.cancelClientSecretRequest({ url: `${dest.url}/api/second`, method: 'POST', id: second.id });
    expect(again.removed).toBe(false);
  });

  it('stopping the poll of a request still waiting withdraws it from the queue; the running one carries on', async () => {
    const hold = holdingDestination();
    const running = await svc.forwardRequest(null, { url: `${dest.url}/api/running`, queue: 'stop-q' });
    const waiting = await svc.forwardRequest(null, { url: `${dest.url}/api/waiting`, queue: 'stop-q' });
    await expect.poll(() => hold.held.length, { timeout: 10_000 }).toBe(1);
    const runningPoll = running.poll({ latency: 50 });
    const waitingPoll = waiting.poll({ latency: 50 });
    await sleep(200);
    expect(svc.stopForwardRequestPolling({ url: `${dest.url}/api/waiting`, method: 'POST', id: waiting.id })).toBe(1);
    expect(svc.isPollStopped(await waitingPoll)).toBe(true);
    await expect
      .poll(async () => (await svc.forwardRequestHistory({ url: `${dest.url}/api/waiting`, method: 'POST' })).list.map((item) => item.id), {
        timeout: 10_000,
        interval: 200,
      })
      .not.toContain(waiting.id);
    hold.releaseAll();
    expect(await runningPoll).toEqual({ path: '/api/running' });
    await sleep(300);
    expect(dest.requests.map((req) => req.url)).toEqual(['/api/running']);
  });

  it('an aborted signal stops the poll only: the request still runs and settles', async () => {
    const hold = holdingDestination();
    const controller = new AbortController();
    const polled = svc.forwardRequest(null, { url: `${dest.url}/api/aborted`, poll: 50, signal: controller.signal });
    await expect.poll(() => hold.held.length, { timeout: 10_000 }).toBe(1);
    controller.abort();
    const result = await polled;
    expect(svc.isPollStopped(result)).toBe(true);
    hold.releaseAll();
    await expect
      .poll(async () => (await svc.forwardRequestHistory({ url: `${dest.url}/api/aborted`, method: 'POST' })).list.map((item) => item.status), {
        timeout: 10_000,
        interval: 200,
      })
      .toEqual(['resolved']);
  });
});

describe('history', () => {
  it('pages through every request of a url and method with startKey', async () => {
    const url = `${dest.url}/api/paged`;
    for (let n = 0; n < 5; n++) await svc.forwardRequest({ n }, { url });
    // A direct request reaches the history just after its answer.
    await expect.poll(async () => (await svc.forwardRequestHistory({ url, method: 'POST' })).list.length, { timeout: 10_000 }).toBe(5);
    const seen: string[] = [];
    let startKey: string | null = null;
    let pages = 0;
    do {
      const page = await svc.forwardRequestHistory({ url, method: 'POST' }, { limit: 2, startKey });
      expect(page.list.length).toBeLessThanOrEqual(2);
      seen.push(...page.list.map((item) => item.id));
      startKey = page.endOfList ? null : page.startKey;
      pages++;
    } while (startKey);
    expect(new Set(seen).size).toBe(5);
    expect(pages).toBeGreaterThanOrEqual(3);
    const { list } = await svc.forwardRequestHistory({ url, method: 'POST' }, { limit: 1 });
    expect(list[0]).toMatchObject({
      status: 'resolved',
      status_code: 200,
      method: 'POST',
      url,
      request_body: { n: expect.any(Number) },
      response_body: { ok: true },
    });
  });

  it('requests made under the deprecated name share the history and the queue count with the new names', async () => {
    const url = `${dest.url}/api/aliased`;
    await svc.forwardRequest(null, { url, method: 'PUT', secretName: 'dest-key', headers: { 'x-key': '$CLIENT_SECRET' } });
    const old = await svc.clientSecretRequest<{ ok: boolean }>({
      clientSecretName: 'dest-key',
      url,
      method: 'PUT',
      headers: { 'x-key': '$CLIENT_SECRET' },
      poll: 50,
    });
    expect(old).toEqual({ ok: true });
    expect(dest.requests.map((req) => req.headers['x-key'])).toEqual([SECRET, SECRET]);
    // Both rows reach the history just after their answers.
    await expect.poll(async () => (await svc.forwardRequestHistory({ url, method: 'PUT' })).list.length, { timeout: 10_000 }).toBe(2);
    const viaNew = await svc.forwardRequestHistory({ url, method: 'PUT' });
    const viaOld = await svc.clientSecretRequestHistory({ url, method: 'PUT' });
    expect(viaNew.list).toHaveLength(2);
    expect(viaOld.list.map((item) => item.id)).toEqual(viaNew.list.map((item) => item.id));
    expect(await svc.clientSecretRequestQueueCount({ queue: 'nothing-here' })).toEqual({ queue_name: 'nothing-here', in_queue: 0 });
  });
});
