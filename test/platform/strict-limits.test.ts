import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it, vi } from 'vitest';
import { enter } from '../../src/platform/strict-context';
import { strictEnv, strictHandlers } from '../../src/platform/strict-entry';
import { InvocationBudget, LimitBreach } from '../../src/platform/strict-limits';
import type { Env } from '../../src/env';
import { ticketStub } from '../../src/platform/object-stubs';

/**
 * Strict mode (docs/limits.md) on the real bindings of the suite: the Worker's entry points and the
 * Durable Objects count each invocation, and a breach is an error naming the limit, before the binding
 * is called.
 */
const origin = inject('loopbackOrigin');

/** Runs `run` as one invocation of the Worker with the suite's bindings under strict mode; answers what it spent. */
async function invocation(run: (e: Env) => Promise<unknown>, plan: 'paid' | 'free' = 'paid') {
  const budget = new InvocationBudget('test invocation', 'request', plan, 'worker');
  await enter(budget, () => run(strictEnv(env)));
  return budget.spent();
}

/** The breach `run` fails with (it is logged, too). */
async function breachOf(run: () => Promise<unknown>): Promise<LimitBreach> {
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LimitBreach);
    expect(log).toHaveBeenCalledWith((err as LimitBreach).message);
    return err as LimitBreach;
  } finally {
    log.mockRestore();
  }
}

describe('strict limits on the real bindings', () => {
  it('strict mode is on in the whole suite (SVC_STRICT_LIMITS=1, the Paid plan)', () => {
    expect(env.SVC_STRICT_LIMITS).toBe('1');
  });

  it('D1 queries and subrequests: each statement of a batch is a query, the batch one subrequest; connections close', async () => {
    const spent = await invocation(async (e) => {
      await e.DB.prepare('SELECT 1').first();
      await e.DB.batch([e.DB.prepare('SELECT 1'), e.DB.prepare('SELECT ?').bind(2), e.DB.prepare('SELECT 3')]);
    });
    expect(spent).toEqual({ subrequests: 2, internet: 0, d1Queries: 4, open: 0 });
  });

  it('D1 queries per invocation: a batch of 51 statements fails on the Free plan before it reaches D1', async () => {
    const breach = await breachOf(() => invocation((e) => e.DB.batch(Array.from({ length: 51 }, () => e.DB.prepare('SELECT 1'))), 'free'));
    expect(breach).toMatchObject({ limit: 'D1 queries per invocation', count: 51, max: 50 });
    expect(breach.message).toContain('D1 queries per invocation: 51 > 50');
  });

  it('SQL string or BLOB size: a D1 value over 2,000,000 bytes is refused and no row is written', async () => {
    await env.DB.exec('CREATE TABLE IF NOT EXISTS strict_probe (v TEXT)');
    const breach = await breachOf(() => invocation((e) => e.DB.prepare('INSERT INTO strict_probe (v) VALUES (?)').bind('x'.repeat(2_000_001)).run()));
    expect(breach).toMatchObject({ limit: 'SQL string or BLOB size (bytes)', count: 2_000_001 });
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM strict_probe').first('n')).toBe(0);
  });

  it('SQL row size: a Durable Object SQLite row over 2,000,000 bytes is refused and not written', async () => {
    const stub = ticketStub(env, 'strict-limits', 'row-size');
    await runInDurableObject(stub, async (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec('CREATE TABLE IF NOT EXISTS strict_probe (a TEXT, b TEXT)');
      const log = vi.spyOn(console, 'error').mockImplementation(() => {});
      expect(() => sql.exec('INSERT INTO strict_probe (a, b) VALUES (?, ?)', 'x'.repeat(1_000_000), 'y'.repeat(1_000_001))).toThrow(
        /SQL row size \(bytes, bound values of one row\): 2000001 > 2000000/,
      );
      log.mockRestore();
      expect(sql.exec('SELECT COUNT(*) AS n FROM strict_probe').one().n).toBe(0);
    });
  });

  it('RPC payload: a Durable Object method called with over 32 MiB of arguments fails as an invocation of its own', async () => {
    const stub = ticketStub(env, 'strict-limits', 'rpc-payload');
    await runInDurableObject(stub, async (instance) => {
      const method = instance.pendingLogCount as (...args: unknown[]) => Promise<number>;
      const breach = await breachOf(async () => method.call(instance, 'x'.repeat(32 * 1024 * 1024)));
      expect(breach).toMatchObject({ limit: 'RPC payload (bytes)', where: 'rpc TicketDO.pendingLogCount' });
    });
  });

  it('subrequests: each call to a Durable Object, R2 and a Queue counts in the calling invocation', async () => {
    const spent = await invocation(async (e) => {
      await ticketStub(e, 'strict-limits', 'count').status();
      await e.BODIES.put('strict-limits/probe', 'x');
      await (await e.BODIES.get('strict-limits/probe'))?.text();
      await e.BODIES.delete('strict-limits/probe');
    });
    expect(spent).toEqual({ subrequests: 4, internet: 0, d1Queries: 0, open: 0 });
  });

  it('Queue sendBatch messages and Queue message size: an oversized batch or message fails before it is sent', async () => {
    const many = await breachOf(() => invocation((e) => e.WORK_QUEUE.sendBatch(Array.from({ length: 101 }, () => ({ body: { kind: 'strict-probe' } })))));
    expect(many).toMatchObject({ limit: 'Queue sendBatch messages', count: 101, max: 100 });
    const big = await breachOf(() => invocation((e) => e.WORK_QUEUE.send({ kind: 'strict-probe', data: 'x'.repeat(128_000) })));
    expect(big.limit).toBe('Queue message size (bytes)');
  });

  it('simultaneous open connections: a seventh fetch while six wait for their headers fails; answers whose headers arrived do not count', async () => {
    const spent = await invocation(async () => {
      // Headers arrived, bodies never sent: these hold no connection any more (the limits page since 2026-04).
      const unread = await Promise.all(Array.from({ length: 6 }, () => fetch(`${origin}/stall-body`)));
      const abort = new AbortController();
      const waiting = Array.from({ length: 6 }, () => fetch(`${origin}/stall`, { signal: abort.signal }).catch((err: unknown) => err));
      const breach = await breachOf(() => fetch(`${origin}/echo`));
      expect(breach).toMatchObject({ limit: 'simultaneous open connections', count: 7, max: 6 });
      abort.abort();
      for (const err of await Promise.all(waiting)) expect(err).not.toBeInstanceOf(LimitBreach);
      expect(await (await fetch(`${origin}/echo`)).json()).toMatchObject({ method: 'GET' });
      await Promise.all(unread.map((response) => response.body?.cancel()));
    });
    // Six unread, six waiting, the refused seventh (counted before its connection was refused) and the last.
    expect(spent).toMatchObject({ subrequests: 14, internet: 14, open: 0 });
  });

  it("the Worker's entry points count each invocation: a queue batch that sends 101 messages at once fails", async () => {
    const worker = strictHandlers<Env, unknown>({
      fetch: async () => new Response(null),
      scheduled: async () => {},
      queue: async (_batch, e) => {
        await e.WORK_QUEUE.sendBatch(Array.from({ length: 101 }, () => ({ body: { kind: 'strict-probe' } })));
      },
    });
    const batch = { queue: 'svc-work', messages: [] } as unknown as MessageBatch<unknown>;
    const breach = await breachOf(async () => worker.queue(batch, env, {} as ExecutionContext));
    expect(breach.limit).toBe('Queue sendBatch messages');
    expect(breach.where).toContain('queue batch of svc-work');
  });
});
