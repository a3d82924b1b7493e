import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Svc, type StreamEnd, type StreamVia } from '../src/index.js';
import { rejection } from './helpers/rejection.js';
import { startScriptedServer, type ScriptedServer } from './helpers/scripted-server.js';
import { StreamService, type ScriptedRequest } from './helpers/stream-service.js';

// A scripted service plays streamed forwarding as the wire contract states it (cursor polls, pages,
// degraded reads, finalize, the realtime socket), so every order of events can be produced on demand.
let server: ScriptedServer;
let service: StreamService;
const SERVICE = 'abcd0000000000000000';
const DEST = 'https://api.example.com/v1/chat';

beforeAll(async () => {
  server = await startScriptedServer();
  service = new StreamService(server, SERVICE);
});
afterAll(async () => {
  service.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  service.reset();
});

const svcOf = (options: Partial<ConstructorParameters<typeof Svc>[0]> = {}) => new Svc({ serviceId: SERVICE, baseUrl: server.url, ...options });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const routes = () => server.requests.map((req) => `${req.method} ${new URL(req.url, 'http://s').pathname.replace(`/v1/projects/${SERVICE}`, '')}`);

/** Records what onStream is handed. */
function reader() {
  const got: Array<[string, number, StreamVia]> = [];
  return {
    got,
    onStream: (chunk: string, seq: number, via: StreamVia) => void got.push([chunk, seq, via]),
    text: () => got.map(([chunk]) => chunk).join(''),
    seqs: () => got.map(([, seq]) => seq),
    vias: () => got.map(([, , via]) => via),
  };
}

/** The request the last dispatch stored. */
async function dispatched(): Promise<ScriptedRequest> {
  await expect.poll(() => service.requests.size).toBeGreaterThan(0);
  return [...service.requests.values()].at(-1)!;
}

/** Stores the pieces one after another, `gapMs` apart, then settles the request. */
async function play(request: ScriptedRequest, pieces: string[], gapMs: number, status: 'resolved' | 'failed' = 'resolved') {
  for (const piece of pieces) {
    service.append(request, piece);
    await sleep(gapMs);
  }
  service.settle(request, status);
}

/** Waits until a socket of the client joined the request's room. */
const joined = (request: ScriptedRequest) => expect.poll(() => service.members.some((m) => m.group === request.group && !m.socket.closed)).toBe(true);

describe('forwardRequest with stream', () => {
  it('poll and onStream: each piece once, in order, then the status envelope, also handed to onResponse', async () => {
    const r = reader();
    const responses: unknown[] = [];
    const result = svcOf().forwardRequest(
      { prompt: 'hi' },
      { url: DEST, stream: true, poll: 5, onStream: r.onStream, onResponse: (res) => (responses.push(res), res) },
    );
    const request = await dispatched();
    await play(request, ['data: a\n\n', 'data: é\n\n', 'data: [DONE]\n\n'], 15);
    const end = (await result) as StreamEnd;
    expect(end).toMatchObject({ id: request.id, status: 'resolved', in_queue: 0, stream: true, last_seq: 3 });
    expect(end).not.toHaveProperty('chunks');
    expect(r.got).toEqual([
      ['data: a\n\n', 1, 'poll'],
      ['data: é\n\n', 2, 'poll'],
      ['data: [DONE]\n\n', 3, 'poll'],
    ]);
    expect(responses).toEqual([end]);
    expect(JSON.parse(server.requests[0].body)).toEqual({ url: DEST, method: 'POST', data: { prompt: 'hi' }, poll: 5, stream: true });
    const cursors = service.reads(request.id).map(Number);
    expect(cursors[0]).toBe(0);
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
  });

  it("without poll it resolves the status object; poll() reads with its own onStream, else the request's", async () => {
    const svc = svcOf();
    const first = reader();
    const status = await svc.forwardRequest(null, { url: DEST, stream: true, onStream: first.onStream });
    expect(status).toMatchObject({ status: 'pending', in_queue: 1 });
    expect(JSON.parse(server.requests[0].body)).toEqual({ url: DEST, method: 'POST', stream: true });
    const request = service.requests.get(status.id)!;
    service.append(request, 'one');
    service.settle(request, 'resolved');
    expect(await status.poll({ latency: 5 })).toMatchObject({ status: 'resolved', last_seq: 1 });
    expect(first.got).toEqual([['one', 1, 'poll']]);
    const second = reader();
    expect(await status.poll({ latency: 5, onStream: second.onStream })).toMatchObject({ status: 'resolved', last_seq: 1 });
    expect(second.got).toEqual([['one', 1, 'poll']]);
    expect(first.got).toHaveLength(1);
  });

  it('without onStream the poll of a streamed request sends no cursor and resolves as any poll does', async () => {
    const result = svcOf().forwardRequest(null, { url: DEST, stream: true, poll: 5 });
    const request = await dispatched();
    await play(request, ['a', 'b'], 5);
    expect(await result).toBeUndefined();
    expect(service.reads(request.id).every((since) => since === undefined)).toBe(true);
  });

  it('a failed stream resolves with its envelope and error (onError is not called)', async () => {
    let errors = 0;
    const r = reader();
    const result = svcOf().forwardRequest(null, { url: DEST, stream: true, poll: 5, onStream: r.onStream, onError: () => errors++ });
    const request = await dispatched();
    service.append(request, 'part');
    service.settle(request, 'failed', { code: 'REQUEST_FAILED', message: 'The destination closed the stream mid-body.', chunks: 1 });
    expect(await result).toMatchObject({ status: 'failed', error: { code: 'REQUEST_FAILED', chunks: 1 }, last_seq: 1 });
    expect(r.text()).toBe('part');
    expect(errors).toBe(0);
  });

  it('with onStream, a request the server did not stream ends as a plain poll: its body, or its failure', async () => {
    const svc = svcOf();
    const r = reader();
    const answered = svc.forwardRequest(null, { url: DEST, queue: 'q', poll: 5, onStream: r.onStream });
    const plain = await dispatched();
    expect(plain.streamed).toBe(false);
    plain.response_body = { answer: 42 };
    service.settle(plain, 'resolved');
    expect(await answered).toEqual({ answer: 42 });
    expect(service.reads(plain.id)[0]).toBe('0');
    const failing = svc.forwardRequest(null, { url: DEST, queue: 'q', poll: 5, onStream: r.onStream });
    await expect.poll(() => service.requests.size).toBe(2);
    service.settle([...service.requests.values()][1], 'failed', { code: 'REQUEST_ABORTED', message: 'Stopped.' });
    expect(await rejection(failing)).toMatchObject({ code: 'REQUEST_ABORTED', message: 'Stopped.' });
    expect(r.got).toEqual([]);
  });

  it('an onStream that throws ends the read with what it threw', async () => {
    const request = service.add({ url: DEST, status: 'running' });
    service.append(request, 'a');
    const boom = new Error('my renderer broke');
    const seen: unknown[] = [];
    const value = await svcOf().forwardRequestStream(request.id, {
      url: DEST,
      method: 'POST',
      poll: 5,
      onStream: () => {
        throw boom;
      },
      onError: (err) => (seen.push(err), 'handled'),
    });
    expect(value).toBe('handled');
    expect(seen).toEqual([boom]);
  });
});

describe('forwardRequestStream', () => {
  it('running: pieces until it settles, then the terminal envelope; `since` skips what the reader holds; a full id needs no url and method', async () => {
    const request = service.add({ url: DEST, status: 'running' });
    for (const piece of ['a', 'b', 'c']) service.append(request, piece);
    const r = reader();
    const read = svcOf().forwardRequestStream(`POST:${request.id}:${DEST}`, { since: 2, poll: 5, onStream: r.onStream });
    await expect.poll(() => r.seqs()).toEqual([3]);
    await play(request, ['d', 'e'], 10);
    expect(await read).toMatchObject({ id: request.id, status: 'resolved', last_seq: 5 });
    expect(r.text()).toBe('cde');
    expect(service.reads(request.id)[0]).toBe('2');
  });

  it('finished and not finalized: every stored piece in order, capped pages read at once whatever the interval', async () => {
    service.pageSize = 2;
    const request = service.add({ url: DEST, status: 'resolved' });
    for (let i = 1; i <= 7; i++) service.append(request, `p${i} `);
    request.status = 'resolved';
    const r = reader();
    const started = Date.now();
    const end = await svcOf().forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 60_000, onStream: r.onStream });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(end).toMatchObject({ status: 'resolved', last_seq: 7 });
    expect(r.text()).toBe('p1 p2 p3 p4 p5 p6 p7 ');
    expect(service.reads(request.id)).toEqual(['0', '2', '4', '6']);
  });

  it('finalized: the kept body, even one with status and id of its own, and nothing streamed', async () => {
    const request = service.add({ url: DEST, status: 'resolved' });
    service.append(request, 'gone');
    request.status = 'resolved';
    request.finalized = { body: { status: 'resolved', id: 'mine', text: 'kept' } };
    const r = reader();
    const responses: unknown[] = [];
    const value = await svcOf().forwardRequestStream(request.id, {
      url: DEST,
      method: 'POST',
      onStream: r.onStream,
      onResponse: (res) => (responses.push(res), 'from onResponse'),
    });
    expect(value).toBe('from onResponse');
    expect(responses).toEqual([{ status: 'resolved', id: 'mine', text: 'kept' }]);
    expect(r.got).toEqual([]);
  });

  it('degraded reads wait the interval; three in a row on a settled request resolve with what arrived', async () => {
    const request = service.add({ url: DEST, status: 'resolved' });
    service.append(request, 'x');
    request.status = 'resolved';
    service.degradedReads = 3;
    const r = reader();
    const started = Date.now();
    const end = await svcOf().forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 40, onStream: r.onStream });
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    expect(end).toMatchObject({ status: 'resolved', last_seq: 0 });
    expect(service.reads(request.id)).toEqual(['0', '0', '0']);
    service.degradedReads = 2;
    expect(await svcOf().forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 5, onStream: r.onStream })).toMatchObject({ last_seq: 1 });
    expect(r.text()).toBe('x');
  });

  it('stop() ends the read only: stopped, no onResponse, nothing withdrawn; stopForwardRequestPolling reaches reads by id and all', async () => {
    const svc = svcOf();
    const request = service.add({ url: DEST, status: 'pending' });
    let called = false;
    const read = svc.forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 5, onResponse: () => (called = true) });
    await expect.poll(() => service.reads(request.id).length).toBeGreaterThan(0);
    read.stop();
    const stopped = await read;
    expect(stopped).toEqual({ id: request.id, status: 'stopped' });
    expect(svc.isPollStopped(stopped)).toBe(true);
    const second = svc.forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 5 });
    const third = svc.clientSecretRequestStream(request.id, { url: DEST, method: 'POST', poll: 5 });
    expect(svc.stopForwardRequestPolling({ url: DEST, method: 'POST', id: request.id })).toBe(2);
    expect(svc.isPollStopped(await second)).toBe(true);
    expect(svc.isPollStopped(await third)).toBe(true);
    const fourth = svc.forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 5 });
    expect(svc.stopClientSecretPolling()).toBe(1);
    expect(svc.isPollStopped(await fourth)).toBe(true);
    await sleep(30);
    expect(called).toBe(false);
    expect(routes()).not.toContain('POST /forward/request/withdraw');
  });

  it("stopping forwardRequest's own stream poll of a request still pending withdraws it, as for any poll", async () => {
    const svc = svcOf();
    const result = svc.forwardRequest(null, { url: DEST, stream: true, poll: 5, onStream: () => undefined });
    const request = await dispatched();
    await expect.poll(() => service.reads(request.id).length).toBeGreaterThan(0);
    expect(svc.stopForwardRequestPolling()).toBe(1);
    expect(svc.isPollStopped(await result)).toBe(true);
    await expect.poll(routes).toContain('POST /forward/request/withdraw');
  });

  it('an id it cannot read is refused before anything is sent; a read that fails goes to onError', async () => {
    const svc = svcOf();
    const noUrl = svc.forwardRequestStream('S1:abcdefgh', { method: 'POST' });
    noUrl.stop();
    expect(await rejection(noUrl)).toMatchObject({ code: 'INVALID_PARAMETER', message: 'url: is required with a stamp:entropy id.' });
    expect(await rejection(svc.forwardRequestStream('nope', { url: DEST, method: 'POST' }))).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(await rejection(svc.forwardRequestStream('S1:abcdefgh', { url: DEST, method: 'POST', since: -1 }))).toMatchObject({
      message: 'since: must be a whole number, 0 or more.',
    });
    expect(server.requests).toHaveLength(0);
    const err = await svc.forwardRequestStream('S9:abcdefgh', { url: DEST, method: 'POST', onError: (e) => e });
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'Request not found.' });
  });
});

describe('realtime', () => {
  it('pieces pushed to the room reach onStream via the socket before the next poll; the socket carries the id token and closes when the read settles', async () => {
    const r = reader();
    const result = svcOf({ idToken: 'tok' }).forwardRequest(null, { url: DEST, stream: true, realtime: true, poll: 400, onStream: r.onStream });
    const request = await dispatched();
    expect(JSON.parse(server.requests[0].body)).toMatchObject({ stream: true, realtime: true });
    await joined(request);
    expect(service.sockets[0].url).toBe(`/v1/projects/${SERVICE}/realtime?token=tok`);
    const reads = service.reads(request.id).length;
    for (const piece of ['a', 'b', 'c']) service.append(request, piece);
    await expect
      .poll(() => r.got, { timeout: 300 })
      .toEqual([
        ['a', 1, 'socket'],
        ['b', 2, 'socket'],
        ['c', 3, 'socket'],
      ]);
    expect(service.reads(request.id)).toHaveLength(reads);
    service.settle(request, 'resolved');
    expect(await result).toMatchObject({ status: 'resolved', last_seq: 3 });
    expect(r.seqs()).toEqual([1, 2, 3]);
    await expect.poll(() => service.sockets[0].closed).toBe(true);
  });

  it('a piece pushed ahead of a missing one waits until the poll fills the gap: in order, nothing twice', async () => {
    const request = service.add({ url: DEST, status: 'running', group: 'Groupaaaaaaaaaaaaaaaaa' });
    service.append(request, 'a', false);
    service.append(request, 'b', false);
    const r = reader();
    const read = svcOf().forwardRequestStream(request.id, { url: DEST, method: 'POST', poll: 60_000, realtimeGroup: request.group, onStream: r.onStream });
    await expect.poll(() => r.seqs()).toEqual([1, 2]);
    await joined(request);
    service.append(request, 'c', false); // stored, its push lost
    service.append(request, 'd');
    await expect.poll(() => r.seqs()).toEqual([1, 2, 3, 4]);
    service.append(request, 'e');
    await expect.poll(() => r.seqs()).toEqual([1, 2, 3, 4, 5]);
    expect(r.vias()).toEqual(['poll', 'poll', 'poll', 'socket', 'socket']);
    expect(r.text()).toBe('abcde');
    read.stop();
    await read;
  });

  it('a read stopped from inside onStream hands over nothing more, not even held pieces that the gap released', async () => {
    const request = service.add({ url: DEST, status: 'running', group: 'Stopaaaaaaaaaaaaaaaaaa' });
    const got: Array<[number, StreamVia]> = [];
    const read = svcOf().forwardRequestStream(request.id, {
      url: DEST,
      method: 'POST',
      poll: 60_000,
      realtimeGroup: request.group,
      onStream: (_chunk, seq, via) => (got.push([seq, via]), read.stop()),
    });
    await expect.poll(() => service.reads(request.id).length).toBe(1);
    await joined(request);
    service.append(request, 'a', false);
    service.append(request, 'b');
    service.append(request, 'c');
    expect(await read).toEqual({ id: request.id, status: 'stopped' });
    await sleep(30);
    expect(got).toEqual([[1, 'poll']]);
  });

  it('a socket that drops mid-stream, or sends an error frame, is no error: the read carries on at poll speed and misses nothing', async () => {
    for (const failure of ['drop', 'error frame'] as const) {
      const request = service.add({ url: DEST, status: 'running', group: `Group${failure === 'drop' ? 'd' : 'e'}`.padEnd(22, 'a') });
      const r = reader();
      let errors = 0;
      const read = svcOf().forwardRequestStream(request.id, {
        url: DEST,
        method: 'POST',
        poll: 20,
        realtimeGroup: request.group,
        onStream: r.onStream,
        onError: () => errors++,
      });
      await joined(request);
      service.append(request, 'a');
      service.append(request, 'b');
      await expect.poll(() => r.seqs()).toEqual([1, 2]);
      const member = service.members.find((m) => m.group === request.group)!;
      if (failure === 'drop') member.socket.destroy();
      else member.socket.send(JSON.stringify({ type: 'error', message: 'garbage' }));
      await expect.poll(() => member.socket.closed).toBe(true);
      await play(request, ['c', 'd'], 5);
      expect(await read).toMatchObject({ status: 'resolved', last_seq: 4 });
      expect(r.text()).toBe('abcd');
      expect(r.vias()).toEqual(['socket', 'socket', 'poll', 'poll']);
      expect(errors).toBe(0);
    }
  });

  it('without a WebSocket in the environment the read runs at poll speed, silently', async () => {
    const original = globalThis.WebSocket;
    (globalThis as { WebSocket?: unknown }).WebSocket = undefined;
    try {
      const r = reader();
      const result = svcOf().forwardRequest(null, { url: DEST, stream: true, realtime: true, poll: 5, onStream: r.onStream });
      const request = await dispatched();
      await play(request, ['a', 'b'], 5);
      expect(await result).toMatchObject({ status: 'resolved', last_seq: 2 });
      expect(r.vias()).toEqual(['poll', 'poll']);
      expect(service.sockets).toHaveLength(0);
    } finally {
      globalThis.WebSocket = original;
    }
  });

  it('of two simultaneous realtime reads the first holds the room; the second reads at poll speed and never evicts it', async () => {
    const svc = svcOf();
    const one = service.add({ url: DEST, status: 'running', group: 'Firstaaaaaaaaaaaaaaaaa' });
    const two = service.add({ url: DEST, status: 'running', group: 'Secondaaaaaaaaaaaaaaaa' });
    const r1 = reader();
    const r2 = reader();
    const read1 = svc.forwardRequestStream(one.id, { url: DEST, method: 'POST', poll: 30, realtimeGroup: one.group, onStream: r1.onStream });
    await joined(one);
    const read2 = svc.forwardRequestStream(two.id, { url: DEST, method: 'POST', poll: 30, realtimeGroup: two.group, onStream: r2.onStream });
    await expect.poll(() => service.reads(two.id).length).toBeGreaterThan(0);
    service.append(one, 'a');
    service.append(two, 'b');
    await expect.poll(() => [r1.got.length, r2.got.length]).toEqual([1, 1]);
    expect(service.sockets).toHaveLength(1);
    expect(service.members.map((m) => m.group)).toEqual([one.group]);
    expect(r1.vias()).toEqual(['socket']);
    expect(r2.vias()).toEqual(['poll']);
    service.settle(one, 'resolved');
    service.settle(two, 'resolved');
    await Promise.all([read1, read2]);
    await expect.poll(() => service.sockets[0].closed).toBe(true);
  });
});

describe('forwardRequestFinalize', () => {
  it('sends the address and the data as given; no data keeps null; the answer comes back as it is', async () => {
    const svc = svcOf({ idToken: 'tok' });
    const request = service.add({ url: DEST, status: 'resolved' });
    expect(await svc.forwardRequestFinalize(request.id, { text: 'kept' }, { url: DEST, method: 'POST' })).toEqual({ finalized: true, message: 'Finalized.' });
    expect(await svc.clientSecretRequestFinalize(`POST:${request.id}:${DEST}`)).toEqual({ finalized: true, message: 'Finalized.' });
    expect(await svc.forwardRequestFinalize('S9:abcdefgh', 'x', { url: DEST, method: 'POST' })).toEqual({ finalized: false, message: 'Request not found.' });
    const bodies = server.requests.map((req) => [routes()[server.requests.indexOf(req)], JSON.parse(req.body), req.headers.authorization]);
    expect(bodies).toEqual([
      ['POST /forward/request/finalize', { id: request.id, url: DEST, method: 'POST', data: { text: 'kept' } }, 'Bearer tok'],
      ['POST /forward/request/finalize', { id: request.id, url: DEST, method: 'POST', data: null }, 'Bearer tok'],
      ['POST /forward/request/finalize', { id: 'S9:abcdefgh', url: DEST, method: 'POST', data: 'x' }, 'Bearer tok'],
    ]);
  });

  it('data over the bound, data that is not JSON, a misspelt option or an id without its url is refused before sending', async () => {
    const svc = svcOf();
    const id = 'S1:abcdefgh';
    const where = { url: DEST, method: 'POST' as const };
    expect(await rejection(svc.forwardRequestFinalize(id, 'é'.repeat(524_288), where))).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'data: must be at most 1048576 bytes as JSON.',
    });
    expect(await rejection(svc.forwardRequestFinalize(id, { f: () => 1, n: 1n }, where))).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(await rejection(svc.forwardRequestFinalize(id, 'x', { ...where, queue: 'q' } as never))).toMatchObject({
      message: 'queue: is not an option of forwardRequestFinalize.',
    });
    expect(await rejection(svc.forwardRequestFinalize(id, 'x'))).toMatchObject({ message: 'url: is required with a stamp:entropy id.' });
    expect(server.requests).toHaveLength(0);
  });
});
