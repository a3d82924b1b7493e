import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../src/index';

const ROUTE = 'https://svc.test/v1/bench/ticket-do';

describe('the bench route', () => {
  it('is off by default: BENCH_ROUTES is "false" in wrangler.toml and the route answers 404 NOT_FOUND', async () => {
    expect(env.BENCH_ROUTES).toBe('false');
    const res = await exports.default.fetch(ROUTE);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'NOT_FOUND', message: 'No such route.' });
  });

  it('with BENCH_ROUTES "true" makes a TicketDO round trip to an object that holds no ticket', async () => {
    const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
    const res = await worker.fetch(new Request(ROUTE), { ...env, BENCH_ROUTES: 'true' }, ctx);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ exists: false, remaining: null });
  });
});
