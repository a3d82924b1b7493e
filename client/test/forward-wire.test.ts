import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ForwardStatusEnvelope } from '../../schemas/forward-rules.js';
import { Svc, type SvcError } from '../src/index.js';
import { json, startScriptedServer, type RecordedRequest, type ScriptedServer } from './helpers/scripted-server.js';
import { rejection } from './helpers/rejection.js';

// A local HTTP server plays the service's forwarding routes, so every answer (direct, queued, each poll
// status, refusals) is produced on demand and every request the client makes is recorded.
let server: ScriptedServer;
const SERVICE = 'abcd0000000000000000';
const DEST = 'https://api.example.com/v1/report';

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const svcOf = (options: Partial<ConstructorParameters<typeof Svc>[0]> = {}) => new Svc({ serviceId: SERVICE, baseUrl: server.url, ...options });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The route of a recorded request, without /v1/projects/<id>, and its query. */
function routeOf(req: RecordedRequest) {
  const url = new URL(req.url, 'http://service');
  return { route: `${req.method} ${url.pathname.replace(`/v1/projects/${SERVICE}`, '')}`, query: Object.fromEntries(url.searchParams) };
}
const routes = () => server.requests.map((req) => routeOf(req).route);
const dispatched = () => server.requests.filter((req) => routeOf(req).route === 'POST /forward').map((req) => JSON.parse(req.body));

const envelope = (id: string, status: ForwardStatusEnvelope['status'], extra: Partial<ForwardStatusEnvelope> = {}): ForwardStatusEnvelope => ({
  id,
  status,
  queue_name: 'q1',
  in_queue: status === 'pending' || status === 'running' ? 1 : 0,
  created: 1000,
  updated: 1000,
  ...extra,
});

/** A direct answer: the destination's body, its status in x-svc-status-code. */
const direct = (res: ServerResponse, body: string, contentType = 'application/json', statusCode = 200) =>
  res.writeHead(200, { 'content-type': contentType, 'x-svc-status-code': String(statusCode), 'x-svc-request-id': 'S1:abcdefgh' }).end(body);

/**
 * A service whose dispatch queues request `id` and whose status route answers the scripted statuses
 * one read after another (the last one repeats).
 */
function queuedService(id: string, statuses: ForwardStatusEnvelope[], queue = 'q1') {
  const reads = new Map<string, number>();
  server.handle((req, res) => {
    const { route, query } = routeOf(req);
    if (route === 'POST /forward') return json(res, 200, envelope(id, 'pending', { queue_name: queue, in_queue: 1 }));
    if (route === 'GET /forward/request') {
      const n = reads.get(query.id) ?? 0;
      reads.set(query.id, n + 1);
      const list = query.id === id ? statuses : [];
      if (!list.length) return json(res, 404, { code: 'NOT_FOUND', message: 'Request not found.' });
      return json(res, 200, list[Math.min(n, list.length - 1)]);
    }
    if (route === 'POST /forward/request/withdraw' || route === 'DELETE /forward/request') return json(res, 200, { removed: true, message: 'Removed.' });
    json(res, 404, { code: 'NOT_FOUND', message: route });
  });
}

describe('options refused before anything is sent', () => {
  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ['apiKeyHeader', { apiKeyHeader: 'x-api-key' }, 'apiKeyHeader: was removed'],
    ['apiKeyScheme', { apiKeyScheme: 'Bearer' }, 'apiKeyScheme: was removed'],
    ["responseType 'response'", { responseType: 'response' }, "responseType: 'response' is not available"],
    ['a negative poll', { poll: -1 }, 'poll: must not be negative'],
    ['an x-svc- header in any case', { headers: { 'X-SVC-User': 'me' } }, 'headers["X-SVC-User"]: names starting with x-svc-'],
    ['a header with a line break', { headers: { 'x-a': 'a\r\nb' } }, 'headers["x-a"]: holds a line break'],
    ['a header outside Latin-1', { headers: { 'x-a': '€' } }, 'holds a line break, NUL or a character outside Latin-1'],
    ['a Host header', { headers: { Host: 'evil.example' } }, 'headers.Host: is set by the service'],
    ['a method in lower case', { method: 'post' }, 'method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD'],
    ['a relative url', { url: '/v1/report' }, 'url: must be an absolute http:// or https:// url'],
    ['a url of another scheme', { url: 'ftp://example.com/x' }, 'url: must be an absolute http:// or https:// url'],
    ['a url over 8 KiB', { url: `https://example.com/${'a'.repeat(8200)}` }, 'url: must be at most 8192 characters'],
    ['data that is not JSON', { data: { n: 10n } }, 'data: must be JSON-serializable'],
    ['data with Infinity (JSON would send null)', { data: { n: Infinity } }, 'data: must be JSON-serializable'],
    ['data with NaN deep inside', { data: { a: [{ b: NaN }] } }, 'data: must be JSON-serializable'],
    ['params with Infinity', { method: 'GET', params: { n: -Infinity } }, 'params: must be an object of JSON values'],
    ['data over 1 MiB as JSON', { data: 'é'.repeat(524_288) }, 'data: must be at most 1048576 bytes as JSON'],
    ['data on a GET', { method: 'GET', data: { a: 1 } }, 'data: a GET request carries no body: send params'],
    ['data on a HEAD', { method: 'HEAD', data: { a: 1 } }, 'data: a HEAD request carries no body: send params'],
    ['multipart with data', { multipart: true, data: { a: 1 } }, 'multipart: cannot be combined with data'],
    ['multipart on GET', { multipart: true, method: 'GET' }, 'multipart: a GET request carries no body'],
    ['a misspelt option', { secretname: 'k' }, 'secretname: is not an option of forwardRequest'],
    ['an empty queue name', { queue: '' }, 'queue: must be a non-empty string'],
    ['expires that is not whole seconds', { expires: 1.5 }, 'expires: must be a whole number of seconds'],
    ['svcHeaders of another shape', { svcHeaders: { everyone: true } }, 'svcHeaders.everyone: must be true, false or'],
    ['stream that is not true or false', { stream: 'yes' }, 'stream: must be true or false'],
    ['realtime that is not true or false', { stream: true, realtime: 1 }, 'realtime: must be true or false'],
    ['onStream that is not a function', { stream: true, onStream: 'print' }, 'onStream: must be a function'],
    ['retry on a direct request', { retry: true }, 'retry: needs a queued request'],
    ['retry that is a string', { queue: 'q1', retry: 'yes' }, 'retry: must be true, false or { within'],
    ['retry within 0 seconds', { queue: 'q1', retry: { within: 0 } }, 'retry.within: must be true, false or { within'],
    ['retry within more than a day', { queue: 'q1', retry: { within: 86_401 } }, 'retry.within: must be'],
    ['retry with another member', { queue: 'q1', retry: { within: 5, times: 2 } }, 'retry.times: must be'],
  ];
  for (const [what, options, message] of refusals) {
    it(`${what} is INVALID_PARAMETER`, async () => {
      const err = await rejection(svcOf().forwardRequest({ field: 'x' }, { url: DEST, ...options } as never));
      expect(err.code).toBe('INVALID_PARAMETER');
      expect(err.message).toContain(message);
      expect(server.requests).toHaveLength(0);
    });
  }

  it('multipart with no form is INVALID_PARAMETER, and onError is not called for a refused option', async () => {
    let called = false;
    const err = await rejection(svcOf().forwardRequest(null, { url: DEST, multipart: true, onError: () => (called = true) }));
    expect(err).toMatchObject({ code: 'INVALID_PARAMETER', message: 'multipart: needs a form (a submit event, form element, FormData or object) to relay.' });
    expect(called).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('an already-aborted signal is INVALID_REQUEST', async () => {
    const err = await rejection(svcOf().forwardRequest(null, { url: DEST, queue: 'q', signal: AbortSignal.abort() }));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(server.requests).toHaveLength(0);
  });

  it('poll() refuses an onStream that is not a function', async () => {
    queuedService('S1:abcdefgh', [envelope('S1:abcdefgh', 'pending')]);
    const status = await svcOf().forwardRequest(null, { url: DEST, queue: 'q1' });
    expect(() => status.poll({ onStream: 'print' as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMETER', message: 'onStream: must be a function.' }),
    );
  });

  it('clientSecretRequest requires clientSecretName and one of its four methods, and takes no forwardRequest-only option', async () => {
    const svc = svcOf();
    const base = { clientSecretName: 'k', url: DEST, method: 'POST' as const };
    expect((await rejection(svc.clientSecretRequest({ ...base, clientSecretName: undefined } as never))).message).toBe('clientSecretName: is required.');
    expect((await rejection(svc.clientSecretRequest({ ...base, method: 'PATCH' } as never))).message).toContain(
      'method: must be one of GET, POST, DELETE, PUT',
    );
    expect((await rejection(svc.clientSecretRequest({ ...base, method: undefined } as never))).message).toContain('method: must be one of');
    for (const option of ['multipart', 'svcHeaders', 'responseType', 'signal']) {
      const err = await rejection(svc.clientSecretRequest({ ...base, [option]: option === 'signal' ? new AbortController().signal : true } as never));
      expect(err).toMatchObject({
        code: 'INVALID_PARAMETER',
        message: `${option}: is an option of forwardRequest, not of the deprecated clientSecretRequest.`,
      });
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('the dispatch on the wire', () => {
  it('a form merges into data for POST and into params for GET, DELETE and HEAD; the options win a collision', async () => {
    server.handle((_req, res) => direct(res, '{}'));
    const svc = svcOf();
    const form = new FormData();
    form.append('a', 'form');
    form.append('b', 'form');
    form.append('tag', '1');
    form.append('tag', '2');
    await svc.forwardRequest(form, { url: DEST, data: { b: 'option' } });
    for (const method of ['GET', 'DELETE', 'HEAD'] as const) await svc.forwardRequest(form, { url: DEST, method, params: { b: 'option' } });
    await svc.forwardRequest(form, { url: DEST, method: 'PUT', params: { q: '1' } });
    const [post, get, del, head, put] = dispatched();
    expect(post).toEqual({ url: DEST, method: 'POST', data: { a: 'form', b: 'option', tag: ['1', '2'] } });
    for (const [body, method] of [
      [get, 'GET'],
      [del, 'DELETE'],
      [head, 'HEAD'],
    ] as const) {
      expect(body).toEqual({ url: DEST, method, params: { a: 'form', b: 'option', tag: ['1', '2'] } });
    }
    expect(put).toEqual({ url: DEST, method: 'PUT', data: { a: 'form', b: 'form', tag: ['1', '2'] }, params: { q: '1' } });
  });

  it('every option the server reads travels under its wire name; the id token goes as the bearer', async () => {
    server.handle((_req, res) => json(res, 200, envelope('S1:abcdefgh', 'pending')));
    const options = {
      url: DEST,
      method: 'PATCH',
      secretName: 'openai',
      headers: { Authorization: 'Bearer $CLIENT_SECRET' },
      data: { q: 1 },
      params: { p: 'x' },
      queue: 'q1',
      expires: 60,
      svcHeaders: { user: true },
      retry: { within: 600 },
    } as const;
    await svcOf({ idToken: 'tok' }).forwardRequest(null, options);
    const [req] = server.requests;
    expect(routeOf(req).route).toBe('POST /forward');
    expect(req.headers.authorization).toBe('Bearer tok');
    expect(JSON.parse(req.body)).toEqual(options);
  });

  it('multipart sends the form bytes with their content type, and drops a content-type header of the caller', async () => {
    server.handle((_req, res) => direct(res, '{"ok":true}'));
    const form = new FormData();
    form.append('file', new File(['hello'], 'h.txt', { type: 'text/plain' }));
    await svcOf().forwardRequest(form, { url: DEST, multipart: true, headers: { 'Content-Type': 'application/json', 'x-a': '1' } });
    const [body] = dispatched();
    expect(Object.keys(body).sort()).toEqual(['headers', 'method', 'multipart', 'url']);
    expect(body.headers).toEqual({ 'x-a': '1' });
    expect(body.multipart.content_type).toMatch(/^multipart\/form-data; boundary=/);
    expect(Buffer.from(body.multipart.base64, 'base64').toString()).toContain('filename="h.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n');
  });

  it('clientSecretRequest sends clientSecretName, its data and poll, and no form', async () => {
    queuedService('S1:abcdefgh', [envelope('S1:abcdefgh', 'resolved', { response_body: { done: 1 } })]);
    expect(await svcOf().clientSecretRequest({ clientSecretName: 'k', url: DEST, method: 'PUT', data: { a: 1 }, poll: 10 })).toEqual({ done: 1 });
    expect(dispatched()).toEqual([{ url: DEST, method: 'PUT', data: { a: 1 }, clientSecretName: 'k', poll: 10 }]);
  });

  it('stream travels as stream: true and realtime only beside it; clientSecretRequest sends both too', async () => {
    queuedService('S1:abcdefgh', [envelope('S1:abcdefgh', 'pending')]);
    await svcOf().forwardRequest(null, { url: DEST, queue: 'q1', realtime: true });
    await svcOf().forwardRequest(null, { url: DEST, stream: false, realtime: true, queue: 'q1' });
    await svcOf().forwardRequest(null, { url: DEST, stream: true, realtime: true });
    await svcOf().clientSecretRequest({ clientSecretName: 'k', url: DEST, method: 'POST', stream: true, realtime: true });
    expect(dispatched()).toEqual([
      { url: DEST, method: 'POST', queue: 'q1' },
      { url: DEST, method: 'POST', queue: 'q1' },
      { url: DEST, method: 'POST', stream: true, realtime: true },
      { url: DEST, method: 'POST', clientSecretName: 'k', stream: true, realtime: true },
    ]);
  });

  it('a 429 with Retry-After on the dispatch is retried as for tickets', async () => {
    let answered = 0;
    server.handle((_req, res) =>
      ++answered === 1 ? json(res, 429, { code: 'TOO_MANY_REQUESTS', message: 'slow' }, { 'retry-after': '0' }) : direct(res, '"ok"'),
    );
    expect(await svcOf().forwardRequest(null, { url: DEST })).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });
});

describe('direct answers', () => {
  it("resolve with the destination's body, JSON when it parses and text otherwise, and call onResponse with it alone", async () => {
    const svc = svcOf();
    server.handle((_req, res) => direct(res, '{"a":[1,2]}'));
    const calls: unknown[][] = [];
    expect(await svc.forwardRequest(null, { url: DEST, onResponse: (...args: unknown[]) => calls.push(args) })).toEqual({ a: [1, 2] });
    expect(calls).toEqual([[{ a: [1, 2] }]]);
    server.handle((_req, res) => direct(res, 'plain words', 'text/plain', 404));
    expect(await svc.forwardRequest(null, { url: DEST })).toBe('plain words');
  });

  it("responseType 'text' hands back the body's text as it came; 'json' parses it when it parses", async () => {
    const svc = svcOf();
    server.handle((_req, res) => direct(res, '{ "a": 1 }'));
    expect(await svc.forwardRequest(null, { url: DEST, responseType: 'text' })).toBe('{ "a": 1 }');
    expect(await svc.forwardRequest(null, { url: DEST, responseType: 'json' })).toEqual({ a: 1 });
    server.handle((_req, res) => direct(res, 'not json', 'text/plain'));
    expect(await svc.forwardRequest(null, { url: DEST, responseType: 'json' })).toBe('not json');
  });

  it('without a queue the answer is direct even when the status header cannot be read (a browser the header is not exposed to)', async () => {
    server.handle((_req, res) => json(res, 200, { id: 'not-an-envelope', status: 'pending', in_queue: 1 }));
    expect(await svcOf().forwardRequest(null, { url: DEST })).toEqual({ id: 'not-an-envelope', status: 'pending', in_queue: 1 });
  });

  it('a refusal rejects with its code, or goes to onError and resolves with what it returns', async () => {
    server.handle((_req, res) => json(res, 400, { code: 'INVALID_REQUEST', message: 'Destination is not allowed for this client secret.' }));
    const err = await rejection(svcOf().forwardRequest(null, { url: DEST, secretName: 'k' }));
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', status: 400, message: 'Destination is not allowed for this client secret.' });
    const seen: unknown[] = [];
    const value = await svcOf().forwardRequest(null, { url: DEST, poll: 10, onError: (e: unknown) => (seen.push(e), 'handled') });
    expect(value).toBe('handled');
    expect(seen[0]).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('check: true resolves the check answer as it is', async () => {
    const answer = {
      check: true,
      outcome: 'send',
      request: { method: 'POST', url: DEST, headers: {}, body: null },
      verdicts: { secret: 'unused', destination: 'allowed', limits: 'allowed' },
    };
    server.handle((_req, res) => json(res, 200, answer));
    expect(await svcOf().forwardRequest(null, { url: DEST, check: true, responseType: 'text' })).toEqual(answer);
    expect(dispatched()[0].check).toBe(true);
  });
});

describe('queued requests and polls', () => {
  const ID = 'S1:abcdefgh';

  it('poll > 0 polls at once and resolves with the final body; onResponse gets meta.executed from a running poll', async () => {
    queuedService(ID, [
      envelope(ID, 'pending'),
      envelope(ID, 'running', { executed: 1234 }),
      envelope(ID, 'resolved', { response_body: { n: 1 }, status_code: 201 }),
    ]);
    const calls: unknown[][] = [];
    const value = await svcOf().forwardRequest(null, { url: DEST, poll: 5, onResponse: (...args: unknown[]) => (calls.push(args), 'mine') });
    expect(value).toBe('mine');
    expect(calls).toEqual([[{ n: 1 }, { executed: 1234 }]]);
    const reads = server.requests.filter((req) => routeOf(req).route === 'GET /forward/request').map((req) => routeOf(req).query);
    expect(reads).toHaveLength(3);
    expect(reads[0]).toEqual({ id: ID, url: DEST, method: 'POST' });
  });

  it('without onResponse a poll resolves with the body, reshaped by responseType; meta is empty when no poll showed executed', async () => {
    queuedService(ID, [envelope(ID, 'resolved', { response_body: { n: 1 } })]);
    expect(await svcOf().forwardRequest(null, { url: DEST, poll: 5, responseType: 'text' })).toBe('{"n":1}');
    const metas: unknown[] = [];
    await svcOf().forwardRequest(null, { url: DEST, poll: 5, onResponse: (_res, meta) => metas.push(meta) });
    expect(metas).toEqual([{}]);
  });

  it('a failed request rejects with the code it carries, or goes to onError', async () => {
    queuedService(ID, [envelope(ID, 'failed', { error: { code: 'REQUEST_ABORTED', message: 'The runner stopped mid-request.' } })]);
    const err = await rejection(svcOf().forwardRequest(null, { url: DEST, poll: 5 }));
    expect(err).toMatchObject({ code: 'REQUEST_ABORTED', message: 'The runner stopped mid-request.' });
    expect(await svcOf().forwardRequest(null, { url: DEST, poll: 5, onError: (e: SvcError) => e.code })).toBe('REQUEST_ABORTED');
  });

  it('poll 0 with a queue resolves the status object untouched by responseType, with poll()', async () => {
    queuedService(ID, [envelope(ID, 'running'), envelope(ID, 'resolved', { response_body: 'done' })]);
    const status = await svcOf().forwardRequest(null, { url: DEST, queue: 'q1', responseType: 'text' });
    expect(status).toMatchObject({ id: ID, status: 'pending', queue_name: 'q1', in_queue: 1 });
    expect(typeof status.poll).toBe('function');
    expect(routes()).toEqual(['POST /forward']);
    expect(await status.poll({ latency: 5 })).toBe('done');
  });

  it("poll() takes the options' onResponse and onError unless given its own", async () => {
    queuedService(ID, [envelope(ID, 'resolved', { response_body: 1 })]);
    const status = await svcOf().forwardRequest(null, { url: DEST, queue: 'q1', onResponse: () => 'from options' });
    expect(await status.poll({ latency: 5 })).toBe('from options');
    expect(await status.poll({ latency: 5, onResponse: () => 'from poll' })).toBe('from poll');
  });

  it("an unknown or expired request's poll rejects with the server's NOT_FOUND", async () => {
    queuedService('S2:abcdefgh', []);
    const err = await rejection(svcOf().forwardRequest(null, { url: DEST, poll: 5 }));
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'Request not found.', status: 404 });
  });
});

describe('stopping polls', () => {
  const ID = 'S1:abcdefgh';

  it("a stopped poll resolves { id, status: 'stopped' } without onResponse or onError, and isPollStopped tells it from an answer", async () => {
    queuedService(ID, [envelope(ID, 'running')]);
    const svc = svcOf();
    let called = false;
    const result = svc.forwardRequest(null, { url: DEST, poll: 5, onResponse: () => (called = true), onError: () => (called = true) });
    await expect.poll(() => routes().length).toBeGreaterThan(1);
    expect(svc.stopForwardRequestPolling({ url: DEST, method: 'POST', id: ID })).toBe(1);
    const stopped = await result;
    expect(stopped).toEqual({ id: ID, status: 'stopped' });
    expect(svc.isPollStopped(stopped)).toBe(true);
    expect(svc.isPollStopped({ id: ID, status: 'stopped' })).toBe(false);
    expect(called).toBe(false);
    expect(svc.stopForwardRequestPolling({ url: DEST, method: 'POST', id: ID })).toBe(0);
  });

  it('stopping a request still pending also withdraws it from its queue; a running one is not withdrawn', async () => {
    queuedService(ID, [envelope(ID, 'pending')]);
    const svc = svcOf();
    const pending = await svc.forwardRequest(null, { url: DEST, queue: 'q1' });
    const poll = pending.poll({ latency: 5 });
    expect(svc.stopForwardRequestPolling({ queue: 'q1' })).toBe(1);
    expect(svc.isPollStopped(await poll)).toBe(true);
    await expect.poll(() => routes()).toContain('POST /forward/request/withdraw');
    const withdraw = server.requests.find((req) => routeOf(req).route === 'POST /forward/request/withdraw')!;
    expect(routeOf(withdraw).query).toEqual({ id: ID, url: DEST, method: 'POST' });

    server.requests.length = 0;
    queuedService(ID, [envelope(ID, 'running')]);
    const running = svc.forwardRequest(null, { url: DEST, poll: 5 });
    await expect.poll(() => routes().filter((r) => r === 'GET /forward/request').length).toBeGreaterThan(0);
    expect(svc.stopForwardRequestPolling()).toBe(1);
    await running;
    await sleep(50);
    expect(routes()).not.toContain('POST /forward/request/withdraw');
  });

  it("poll()'s stop() stops that one poll", async () => {
    queuedService(ID, [envelope(ID, 'running')]);
    const svc = svcOf();
    const status = await svc.forwardRequest(null, { url: DEST, queue: 'q1' });
    const poll = status.poll({ latency: 5 });
    poll.stop();
    expect(await poll).toEqual({ id: ID, status: 'stopped' });
    expect(svc.stopForwardRequestPolling()).toBe(0);
  });

  /** History items of two queues, each running: polls started from them share the registry with every other method. */
  const historyItem = (id: string, queue: string) => ({ ...envelope(id, 'running', { queue_name: queue }), method: 'POST' as const, url: DEST });

  it('stops by id, by queue, or all, counting what it stopped; another queue or another id is left alone', async () => {
    server.handle((req, res) => {
      const { route, query } = routeOf(req);
      if (route === 'GET /forward/history')
        return json(res, 200, {
          list: [historyItem('A1:abcdefgh', 'qa'), historyItem('B1:abcdefgh', 'qb'), historyItem('C1:abcdefgh', 'qc')],
          startKey: null,
          endOfList: true,
        });
      if (route === 'GET /forward/request') return json(res, 200, envelope(query.id, 'running'));
      json(res, 200, { removed: true, message: 'ok' });
    });
    const svc = svcOf();
    const { list } = await svc.forwardRequestHistory({ url: DEST, method: 'POST' });
    const polls = list.map((item) => item.poll!({ latency: 5 }));
    expect(svc.stopForwardRequestPolling({ url: DEST, method: 'POST', id: 'B1:abcdefgh' })).toBe(1);
    expect(svc.stopClientSecretPolling({ queue: 'qb' })).toBe(0);
    expect(svc.stopForwardRequestPolling({ url: DEST, method: 'POST', id: 'Z9:abcdefgh' })).toBe(0);
    expect(svc.stopForwardRequestPolling({ url: DEST, method: 'GET' })).toBe(0);
    expect(svc.stopForwardRequestPolling({ queue: 'qa' })).toBe(1);
    expect(svc.stopForwardRequestPolling()).toBe(1);
    expect(await Promise.all(polls)).toEqual([
      { id: 'A1:abcdefgh', status: 'stopped' },
      { id: 'B1:abcdefgh', status: 'stopped' },
      { id: 'C1:abcdefgh', status: 'stopped' },
    ]);
    expect(svc.stopForwardRequestPolling()).toBe(0);
  });

  it('an id needs url and method unless it is a full id', () => {
    const svc = svcOf();
    expect(() => svc.stopForwardRequestPolling({ id: ID })).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMETER', message: 'url: is required with a stamp:entropy id.' }),
    );
    expect(svc.stopForwardRequestPolling({ id: `POST:${ID}:${DEST}` })).toBe(0);
  });

  it('polls of one queue take turns: the second reads nothing until the first is over', async () => {
    const reads: string[] = [];
    let firstDone = false;
    server.handle((req, res) => {
      const { route, query } = routeOf(req);
      if (route === 'GET /forward/history')
        return json(res, 200, { list: [historyItem('A1:abcdefgh', 'qa'), historyItem('A2:abcdefgh', 'qa')], startKey: null, endOfList: true });
      reads.push(query.id);
      if (query.id === 'A1:abcdefgh') return json(res, 200, envelope(query.id, firstDone ? 'resolved' : 'running', { response_body: 'first' }));
      json(res, 200, envelope(query.id, 'resolved', { response_body: 'second' }));
    });
    const { list } = await svcOf().forwardRequestHistory({ url: DEST, method: 'POST' });
    const first = list[0].poll!({ latency: 10 });
    const second = list[1].poll!({ latency: 10 });
    await expect.poll(() => reads.length).toBeGreaterThanOrEqual(3);
    expect(new Set(reads)).toEqual(new Set(['A1:abcdefgh']));
    firstDone = true;
    expect(await first).toBe('first');
    expect(await second).toBe('second');
    expect(reads.at(-1)).toBe('A2:abcdefgh');
  });

  it('an aborted signal stops the poll without withdrawing the request; poll() with an aborted signal stops at once', async () => {
    queuedService(ID, [envelope(ID, 'pending')]);
    const svc = svcOf();
    const controller = new AbortController();
    const status = await svc.forwardRequest(null, { url: DEST, queue: 'q1', signal: controller.signal });
    const poll = status.poll({ latency: 5 });
    await expect.poll(() => routes()).toContain('GET /forward/request');
    controller.abort();
    expect(svc.isPollStopped(await poll)).toBe(true);
    // A read already on its way when the signal aborted may still arrive: count after it has.
    await sleep(50);
    const reads = routes().length;
    expect(svc.isPollStopped(await status.poll({ latency: 5 }))).toBe(true);
    await sleep(50);
    expect(routes()).toHaveLength(reads);
    expect(routes()).not.toContain('POST /forward/request/withdraw');
  });
});

describe('cancel, queue count and history on the wire', () => {
  const ID = 'S1:abcdefgh';

  it('cancel sends DELETE with the address and answers { removed, message }; with queue it also stops the poll', async () => {
    queuedService(ID, [envelope(ID, 'pending')]);
    const svc = svcOf({ idToken: 'tok' });
    const status = await svc.forwardRequest(null, { url: DEST, queue: 'q1' });
    const poll = status.poll({ latency: 5 });
    expect(await svc.cancelForwardRequest({ url: DEST, method: 'POST', id: ID, queue: 'q1' })).toEqual({ removed: true, message: 'Removed.' });
    expect(svc.isPollStopped(await poll)).toBe(true);
    const cancel = server.requests.find((req) => routeOf(req).route === 'DELETE /forward/request')!;
    expect(routeOf(cancel).query).toEqual({ id: ID, url: DEST, method: 'POST' });
    expect(cancel.headers.authorization).toBe('Bearer tok');
    expect(routes()).not.toContain('POST /forward/request/withdraw');
    expect(await svc.cancelClientSecretRequest({ url: DEST, method: 'POST', id: ID })).toEqual({ removed: true, message: 'Removed.' });
  });

  it('queue count reads /forward/queue', async () => {
    server.handle((_req, res) => json(res, 200, { queue_name: 'q1', in_queue: 3 }));
    expect(await svcOf().forwardRequestQueueCount({ queue: 'q1' })).toEqual({ queue_name: 'q1', in_queue: 3 });
    expect(await svcOf().clientSecretRequestQueueCount({ queue: 'q1' })).toEqual({ queue_name: 'q1', in_queue: 3 });
    expect(server.requests.map((req) => req.url)).toEqual([`/v1/projects/${SERVICE}/forward/queue?queue=q1`, `/v1/projects/${SERVICE}/forward/queue?queue=q1`]);
    await expect(svcOf().forwardRequestQueueCount({} as never)).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'queue: must be a non-empty string.',
    });
  });

  it('history sends every filter and the paging; pending and running items carry poll(), settled ones do not', async () => {
    const item = (id: string, status: ForwardStatusEnvelope['status']) => ({ ...envelope(id, status), method: 'GET', url: DEST });
    server.handle((_req, res) =>
      json(res, 200, {
        list: [item('A:abcdefgh', 'pending'), item('B:abcdefgh', 'running'), item('C:abcdefgh', 'resolved')],
        startKey: 'k2',
        endOfList: false,
      }),
    );
    const page = await svcOf().clientSecretRequestHistory(
      { url: DEST, method: 'GET', queue: 'q', queue_exact: true, queue_exclude: 'bg', status: 'pending', compact: true },
      { limit: 3, startKey: 'k1' },
    );
    expect(page.list.map((i) => typeof i.poll)).toEqual(['function', 'function', 'undefined']);
    expect(page).toMatchObject({ startKey: 'k2', endOfList: false });
    expect(routeOf(server.requests[0])).toEqual({
      route: 'GET /forward/history',
      query: { url: DEST, method: 'GET', queue: 'q', queue_exact: 'true', queue_exclude: 'bg', status: 'pending', compact: 'true', startKey: 'k1', limit: '3' },
    });
    await expect(svcOf().forwardRequestHistory({ url: DEST, method: 'GET', status: 'done' as never })).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});
