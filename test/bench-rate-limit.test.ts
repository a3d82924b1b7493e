/**
 * The bench's stand-in for the Rate Limiting bindings (bench/rate-limit-stand-in.ts, issue 34): it keeps
 * the binding's contract (fixed windows per namespace and key, refused from the limit on, not counted when
 * refused), and bench/gateway-entry.ts uses it only for requests that ask with `x-bench-rate-limit: isolate`.
 */
import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import benchGateway from '../bench/gateway-entry';
import { parseRateLimitTable, standInBindings } from '../bench/rate-limit-stand-in';

const table = {
  A: { namespace: '1', limit: 3, period: 10 },
  B: { namespace: '2', limit: 1, period: 60 },
  SHARED: { namespace: '1', limit: 5, period: 10 },
};
const successes = async (binding: RateLimit, key: string, n: number) => {
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) out.push((await binding.limit({ key })).success);
  return out;
};

describe('the bench stand-in for the Rate Limiting binding', () => {
  it('allows `limit` calls per key and window, then refuses without counting, until the window ends', async () => {
    let clock = 1_000_000_000_000; // a multiple of 10 s: the start of a window
    const { A, B } = standInBindings(table, { now: () => clock });
    expect(await successes(A, 'k', 5)).toEqual([true, true, true, false, false]);
    expect(await successes(A, 'other', 1)).toEqual([true]);
    expect(await successes(B, 'k', 2)).toEqual([true, false]);
    clock += 9_999;
    expect(await successes(A, 'k', 1)).toEqual([false]);
    clock += 1;
    expect(await successes(A, 'k', 4)).toEqual([true, true, true, false]);
    expect(await successes(B, 'k', 1)).toEqual([false]);
  });

  it('counts bindings of one namespace together, each against its own limit', async () => {
    const { A, SHARED } = standInBindings(table, { now: () => 0 });
    expect(await successes(A, 'k', 2)).toEqual([true, true]);
    expect(await successes(SHARED, 'k', 4)).toEqual([true, true, true, false]);
    expect(await successes(A, 'k', 1)).toEqual([false]);
  });

  it('keeps counting across stand-ins made over the same windows (the entry keeps one map per isolate)', async () => {
    const windows = new Map();
    expect(await successes(standInBindings(table, { windows, now: () => 0 }).A, 'k', 2)).toEqual([true, true]);
    expect(await successes(standInBindings(table, { windows, now: () => 0 }).A, 'k', 2)).toEqual([true, false]);
  });

  it('takes a delta and refuses bad options, like the binding', async () => {
    const { A } = standInBindings(table, { now: () => 0 });
    expect((await A.limit({ key: 'k', delta: 2 })).success).toBe(true);
    expect((await A.limit({ key: 'k', delta: 5 })).success).toBe(true);
    expect((await A.limit({ key: 'k' })).success).toBe(false);
    await expect(A.limit({ key: 'k', delta: 0 })).rejects.toThrow(TypeError);
    await expect(A.limit({ key: 7 as unknown as string })).rejects.toThrow(TypeError);
    expect(() => parseRateLimitTable(JSON.stringify({ X: { namespace: '1', limit: 1, period: 30 } }))).toThrow(/bad rate limit X/);
  });

  it('bench/gateway-entry.ts counts a request in the stand-in only when it asks with x-bench-rate-limit: isolate', async () => {
    // GET /v1/owner counts its caller in FLOOD_OWNER (5 000 every 10 s in wrangler.toml), then answers 401 without a
    // key; the stand-in's FLOOD_OWNER here allows nothing.
    const benchEnv = { ...env, BENCH_RATE_LIMITS: JSON.stringify({ FLOOD_OWNER: { namespace: '2623', limit: 0, period: 10 } }) };
    const owner = (mode?: string) =>
      benchGateway.fetch(
        new Request('https://svc.test/v1/owner', { headers: { 'cf-connecting-ip': '203.0.113.34', ...(mode ? { 'x-bench-rate-limit': mode } : {}) } }),
        benchEnv,
        createExecutionContext(),
      );
    expect((await owner('isolate')).status).toBe(429);
    expect((await owner('binding')).status).toBe(401);
    expect((await owner()).status).toBe(401);
    expect((await owner('isolate')).status).toBe(429);
  });
});
