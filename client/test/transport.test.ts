import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Svc } from '../src/index.js';
import { json, startScriptedServer, type ScriptedServer } from './helpers/scripted-server.js';
import { rejection } from './helpers/rejection.js';

// A local HTTP server stands in for the service, or for a proxy in front of it, so each answer
// (429, HTML error page, silence) can be produced on demand.
let server: ScriptedServer;
const RECEIPT = { tkid: '#t1#VVrda3vx1Yz#127.0.0.1(node)', hash: 'f'.repeat(64) };

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const svcOf = (options: Partial<ConstructorParameters<typeof Svc>[0]> = {}) => new Svc({ serviceId: 'abcd0000000000000000', baseUrl: server.url, ...options });
const consume = (svc = svcOf()) => svc.consumeTicket({ ticket_id: 't1', method: 'POST', data: { a: 1 } });

describe('429 handling', () => {
  it('a 429 with Retry-After is retried after the server wait, then resolves', async () => {
    let answered = 0;
    server.handle((_req, res) =>
      ++answered <= 2 ? json(res, 429, { code: 'TOO_MANY_REQUESTS', message: 'slow down' }, { 'retry-after': '0' }) : json(res, 200, RECEIPT),
    );
    const receipt = await consume();
    expect(receipt.consume_id).toBe('VVrda3vx1Yz');
    expect(server.requests).toHaveLength(3);
  });

  it('the retry waits at least the Retry-After the server asked for', async () => {
    let answered = 0;
    server.handle((_req, res) => (++answered === 1 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, RECEIPT)));
    const started = Date.now();
    await consume();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('a 429 with Retry-After is retried at most 6 times, then fails with TOO_MANY_REQUESTS', async () => {
    server.handle((_req, res) => json(res, 429, { code: 'TOO_MANY_REQUESTS', message: 'slow down' }, { 'retry-after': '0' }));
    const err = await rejection(consume());
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.status).toBe(429);
    expect(server.requests).toHaveLength(7);
  });

  it('a 429 without Retry-After fails at once with TOO_MANY_REQUESTS', async () => {
    server.handle((_req, res) => json(res, 429, { code: 'TOO_MANY_REQUESTS', message: 'slow down' }));
    const err = await rejection(consume());
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.cause).toEqual({ code: 'TOO_MANY_REQUESTS', message: 'slow down' });
    expect(server.requests).toHaveLength(1);
  });

  it('a 429 asking to wait longer than maxRetryWaitMs fails at once instead of waiting', async () => {
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': '3600' }));
    const err = await rejection(consume(svcOf({ maxRetryWaitMs: 5_000 })));
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(server.requests).toHaveLength(1);
  });

  it('listings follow the same 429 rule', async () => {
    let answered = 0;
    server.handle((_req, res) =>
      ++answered === 1 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 200, { list: [], startKey: null, endOfList: true }),
    );
    expect(await svcOf().getTickets()).toEqual({ list: [], startKey: null, endOfList: true });
    expect(server.requests).toHaveLength(2);
  });
});

describe('answers that are not the service', () => {
  const html502 = (res: ServerResponse) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');

  it("a proxy's 502 HTML page rejects with INVALID_RESPONSE naming the status", async () => {
    server.handle((_req, res) => html502(res));
    const err = await rejection(consume());
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.status).toBe(502);
    expect(err.message).toContain('502');
    expect(err.message).toContain('text/html');
    const listing = await rejection(svcOf().getTickets());
    expect(listing.code).toBe('INVALID_RESPONSE');
  });

  it('an empty 200 or 502 (a proxy that lost the body) rejects a consumption with INVALID_RESPONSE', async () => {
    for (const status of [200, 502]) {
      server.handle((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end());
      const err = await rejection(consume());
      expect(err).toMatchObject({ code: 'INVALID_RESPONSE', status });
      expect(err.message).toContain('empty body');
    }
  });

  it('a server that never answers fails with TIMEOUT after timeoutMs', async () => {
    server.handle(() => {});
    const started = Date.now();
    const err = await rejection(consume(svcOf({ timeoutMs: 300 })));
    expect(err.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an answer whose body stalls also fails with TIMEOUT', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"tkid":');
    });
    const err = await rejection(consume(svcOf({ timeoutMs: 300 })));
    expect(err.code).toBe('TIMEOUT');
  });

  it('an unreachable service fails with NETWORK_ERROR', async () => {
    const closed = await startScriptedServer();
    await closed.close();
    const err = await rejection(consume(svcOf({ baseUrl: closed.url })));
    expect(err.code).toBe('NETWORK_ERROR');
    expect(err.cause).toBeInstanceOf(Error);
  });

  it("a legacy ticket's plain-text failure rejects with INVALID_REQUEST and no cause; its 500 with ERROR", async () => {
    server.handle((_req, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('TICKET_EXHAUSTED: The ticket is used up.'));
    const legacy = await rejection(consume());
    expect(legacy).toMatchObject({ code: 'INVALID_REQUEST', message: 'TICKET_EXHAUSTED: The ticket is used up.' });
    expect(legacy.cause).toBeUndefined();
    server.handle((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal server error'));
    const crash = await rejection(consume());
    expect(crash.code).toBe('ERROR');
    expect(crash.cause).toBeUndefined();
  });
});

describe('consumeTicket answers, whatever the status', () => {
  it('a body with stage rejects with its code and the body as cause, even on a 200', async () => {
    const body = { code: 'CONDITION_FAILED', message: 'The condition failed.', stage: 'condition', detail: { field: 'body', keys: ['a'] }, ticket_id: 't1' };
    server.handle((_req, res) => json(res, 200, body));
    const err = await rejection(consume());
    expect(err).toMatchObject({ code: 'CONDITION_FAILED', message: 'The condition failed.' });
    expect(err.cause).toEqual(body);
  });

  it('a body a resp action composed resolves as sent, whatever its status', async () => {
    server.handle((_req, res) => json(res, 201, { greeting: 'hi', items: [1, 2] }));
    expect(await svcOf().consumeTicket<{ greeting: string }>({ ticket_id: 't1', method: 'GET' })).toEqual({ greeting: 'hi', items: [1, 2] });
    server.handle((_req, res) => json(res, 402, { code: 'PAY_FIRST', message: 'Payment required.' }));
    expect(await svcOf().consumeTicket({ ticket_id: 't1', method: 'POST' })).toEqual({ code: 'PAY_FIRST', message: 'Payment required.' });
  });

  it('signed-in consumption with GET is refused before anything is sent', async () => {
    const err = await rejection(svcOf({ idToken: 'token' }).consumeTicket({ ticket_id: 't1', method: 'GET', auth: true }));
    expect(err).toMatchObject({ code: 'INVALID_PARAMETER', message: 'Signed-in consumption is POST only.' });
    expect(server.requests).toHaveLength(0);
  });

  it('POST sends data as a JSON body to /tp; auth sends the id token to /tpa; GET sends the query string to /tg', async () => {
    server.handle((_req, res) => json(res, 200, RECEIPT));
    const svc = svcOf({ idToken: 'id-token-1' });
    await svc.consumeTicket({ ticket_id: 't1', method: 'POST', data: { a: 1 } });
    await svc.consumeTicket({ ticket_id: 't1', method: 'POST', auth: true, data: { b: 2 } });
    await svc.consumeTicket({ ticket_id: 't1', method: 'GET', data: { qty: 2, code: '2' } });
    const [tp, tpa, tg] = server.requests;
    expect(tp).toMatchObject({ method: 'POST', url: '/tp/abcd0000000000000000/t1', body: '{"a":1}' });
    expect(tp.headers['content-type']).toBe('application/json');
    expect(tp.headers.authorization).toBeUndefined();
    expect(tpa).toMatchObject({ method: 'POST', url: '/tpa/abcd0000000000000000/t1', body: '{"b":2}' });
    expect(tpa.headers.authorization).toBe('Bearer id-token-1');
    expect(tg).toMatchObject({ method: 'GET', url: '/tg/abcd0000000000000000/t1?qty=2&code=%222%22', body: '' });
    expect(tg.headers.authorization).toBeUndefined();
  });

  it('bad parameters are refused with INVALID_PARAMETER naming the field', async () => {
    const svc = svcOf();
    await expect(svc.consumeTicket({ ticket_id: '', method: 'POST' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', message: 'ticket_id: required.' });
    await expect(svc.consumeTicket({ ticket_id: 't', method: 'PUT' as 'POST' })).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      message: "method: must be 'GET' or 'POST'.",
    });
    expect(() => new Svc({ serviceId: 's', baseUrl: server.url, batchSize: 0 })).toThrow('batchSize: must be a positive integer.');
    expect(() => new Svc({ serviceId: 's', baseUrl: 'example.com' })).toThrow('baseUrl: must be an http(s) URL.');
    expect(server.requests).toHaveLength(0);
  });
});

describe('listing and owner requests on the wire', () => {
  it('getTickets, getConsumedTickets and clearTicketLog call their routes with the id token', async () => {
    server.handle((req, res) =>
      json(
        res,
        200,
        req.method === 'POST' ? { message: 'SUCCESS: Clearing the log.', ticket_id: 't1', before: 5 } : { list: [], startKey: null, endOfList: true },
      ),
    );
    const svc = svcOf({ idToken: 'tok' });
    await svc.getTickets({ ticket_id: '#t1#', from: 1, to: 2 }, { startKey: 'k1', limit: 10 });
    await svc.getConsumedTickets({ ticket_id: 't1' }, { limit: 5 });
    expect(await svc.clearTicketLog({ ticket_id: 't1', before: 5 })).toEqual({ message: 'SUCCESS: Clearing the log.', ticket_id: 't1', before: 5 });
    svc.setIdToken(null);
    await svc.getConsumedTickets();
    const [tickets, consumed, clear, signedOut] = server.requests;
    expect(tickets).toMatchObject({ method: 'GET', url: '/v1/projects/abcd0000000000000000/tickets?ticket_id=%23t1%23&from=1&to=2&startKey=k1&limit=10' });
    expect(consumed).toMatchObject({ method: 'GET', url: '/v1/projects/abcd0000000000000000/consumed?ticket_id=t1&limit=5' });
    expect(clear).toMatchObject({ method: 'POST', url: '/v1/projects/abcd0000000000000000/tickets/t1/clear-log', body: '{"before":5}' });
    for (const req of [tickets, consumed, clear]) expect(req.headers.authorization).toBe('Bearer tok');
    expect(signedOut.headers.authorization).toBeUndefined();
  });

  it('an error answer of a listing rejects with its code and status', async () => {
    server.handle((_req, res) => json(res, 401, { code: 'UNAUTHORIZED', message: 'Sign in to list tickets.' }));
    const err = await rejection(svcOf().getTickets());
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', message: 'Sign in to list tickets.', status: 401 });
  });
});

describe('request batching', () => {
  /** Holds every request until released, so the number in flight can be counted exactly. */
  async function countInFlight(svc: Svc, total: number, batch: number) {
    const held: ServerResponse[] = [];
    server.handle((_req, res) => held.push(res));
    let settled = 0;
    const all = Array.from({ length: total }, () => consume(svc).finally(() => settled++));
    let peak = 0;
    while (settled < total) {
      const expected = Math.min(batch, total - settled);
      await expect.poll(() => held.length, { timeout: 10_000 }).toBe(expected);
      await new Promise((r) => setTimeout(r, 100)); // time for any request beyond the batch to arrive
      peak = Math.max(peak, held.length);
      expect(held.length).toBe(expected);
      const before = settled;
      const answering = held.splice(0);
      for (const res of answering) json(res, 200, RECEIPT);
      await expect.poll(() => settled, { timeout: 10_000 }).toBe(before + answering.length);
    }
    await Promise.all(all);
    return peak;
  }

  it('at most 50 requests are in flight by default; the rest wait and all complete', async () => {
    expect(await countInFlight(svcOf(), 120, 50)).toBe(50);
    expect(server.requests).toHaveLength(120);
  });

  it('batchSize sets how many requests are in flight', async () => {
    expect(await countInFlight(svcOf({ batchSize: 3 }), 10, 3)).toBe(3);
  });
});
