import { describe, expect, it, vi } from 'vitest';
import {
  checkQueueMessage,
  checkSendBatch,
  checkStatement,
  cloneBytes,
  deepestChain,
  forgetDeepest,
  forgetSpent,
  InvocationBudget,
  LimitBreach,
  mostSpentIn,
  rowGroups,
} from './strict-limits';
import { utf8Bytes } from '../../schemas/utf8';

/** The breach `run` throws (and logs), as { limit, count, max }. */
function breachOf(run: () => unknown): { limit: string; count: number; max: number } {
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(LimitBreach);
    const breach = err as LimitBreach;
    expect(breach.message).toContain(breach.limit);
    expect(log).toHaveBeenCalledWith(breach.message);
    return { limit: breach.limit, count: breach.count, max: breach.max };
  } finally {
    log.mockRestore();
  }
  throw new Error('no breach');
}

const budget = (plan: 'free' | 'paid', kind: 'request' | 'alarm' = 'request', now = Date.now) => new InvocationBudget('test', kind, plan, null, now);

describe('per-invocation counts', () => {
  it('subrequests per invocation: the 10,001st of a Paid invocation fails', () => {
    const b = budget('paid');
    for (let i = 0; i < 10_000; i++) b.subrequest(i % 2 === 0);
    expect(breachOf(() => b.subrequest(false))).toEqual({ limit: 'subrequests per invocation', count: 10_001, max: 10_000 });
  });

  it('Internet subrequests per invocation: the 51st fetch of a Free invocation fails', () => {
    const b = budget('free');
    for (let i = 0; i < 50; i++) b.subrequest(true);
    expect(breachOf(() => b.subrequest(true))).toEqual({ limit: 'Internet subrequests per invocation', count: 51, max: 50 });
  });

  it('subrequests per invocation: the 1,001st call to a Cloudflare service of a Free invocation fails', () => {
    const b = budget('free');
    for (let i = 0; i < 1_000; i++) b.subrequest(false);
    expect(breachOf(() => b.subrequest(false))).toEqual({ limit: 'subrequests per invocation', count: 1_001, max: 1_000 });
  });

  it('D1 queries per invocation: each statement of a batch counts (1,000 Paid, 50 Free)', () => {
    const paid = budget('paid');
    paid.d1Queries(999);
    expect(breachOf(() => paid.d1Queries(2))).toEqual({ limit: 'D1 queries per invocation', count: 1_001, max: 1_000 });
    const free = budget('free');
    free.d1Queries(50);
    expect(breachOf(() => free.d1Queries(1))).toEqual({ limit: 'D1 queries per invocation', count: 51, max: 50 });
  });

  it('simultaneous open connections: a seventh open at once fails, one closed frees its slot', () => {
    const b = budget('paid');
    const closes = Array.from({ length: 6 }, () => b.openConnection());
    expect(breachOf(() => b.openConnection())).toEqual({ limit: 'simultaneous open connections', count: 7, max: 6 });
    closes[0]();
    closes[0]();
    b.openConnection();
    expect(breachOf(() => b.openConnection()).count).toBe(7);
  });

  it('alarm wall time: an alarm past 15 minutes fails at its next operation; a request has no such limit', () => {
    let now = 0;
    const alarm = budget('paid', 'alarm', () => now);
    const request = budget('paid', 'request', () => now);
    now = 15 * 60_000;
    alarm.subrequest(false);
    now += 1;
    expect(breachOf(() => alarm.subrequest(false))).toEqual({ limit: 'alarm wall time (ms)', count: 15 * 60_000 + 1, max: 15 * 60_000 });
    expect(breachOf(() => alarm.checkWallTime()).limit).toBe('alarm wall time (ms)');
    request.subrequest(false);
    request.checkWallTime();
  });
});

describe('the most an invocation spent', () => {
  it('is kept per place, each figure its own maximum, so a test under Paid can show a Free fit', () => {
    forgetSpent();
    const first = new InvocationBudget('alarm X.alarm', 'alarm', 'paid', null);
    first.d1Queries(40);
    first.subrequest(false);
    const second = new InvocationBudget('alarm X.alarm', 'alarm', 'paid', null);
    for (let i = 0; i < 3; i++) second.subrequest(true);
    second.d1Queries(2);
    new InvocationBudget('rpc X.runJob', 'rpc', 'paid', null).d1Queries(70);
    expect(mostSpentIn('alarm X.')).toEqual({ subrequests: 3, internet: 3, d1Queries: 40, open: 0 });
    expect(mostSpentIn('rpc X.').d1Queries).toBe(70);
    expect(mostSpentIn('alarm Y.').d1Queries).toBe(0);
  });
});

describe('subrequest depth', () => {
  /** The invocation a call from `budget` starts, as the callee's entry makes it. */
  const callee = (budget: InvocationBudget, where: string) => new InvocationBudget(where, 'rpc', 'paid', null, Date.now, budget.call(where));

  it('a request, an alarm, a queue batch start at 1; each call is one deeper; the call that would be the 17th fails naming the chain', () => {
    let at = new InvocationBudget('request POST /tp/x', 'request', 'paid', 'worker', Date.now, { chain: [], host: 'svc.test' });
    expect(at.depth).toBe(1);
    expect(new InvocationBudget('alarm X.alarm', 'alarm', 'paid', null).depth).toBe(1);
    at = callee(at, 'rpc TicketDO.consume');
    for (let depth = 3; depth <= 16; depth++) at = callee(at, 'rpc TicketDO.runJob');
    expect(at.depth).toBe(16);
    expect(at.host).toBe('svc.test');
    const breach = breachOf(() => at.call('TICKETS.runJob'));
    expect(breach).toEqual({ limit: 'subrequest depth (Workers and Durable Objects one request recursed through)', count: 17, max: 16 });
    const chain = ['request POST /tp/x', 'rpc TicketDO.consume', ...Array(14).fill('rpc TicketDO.runJob'), 'TICKETS.runJob'];
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => at.call('TICKETS.runJob')).toThrow(`: 17 > 16, in ${chain.join(' → ')}`);
    log.mockRestore();
  });

  it('deepestChain: the deepest chain reached, per prefix of where it ran, until forgetDeepest', () => {
    forgetDeepest();
    const request = new InvocationBudget('request GET /a', 'request', 'paid', 'worker');
    const rpc = callee(request, 'rpc X.run');
    callee(rpc, 'rpc Y.step');
    new InvocationBudget('rpc Y.step', 'rpc', 'paid', null);
    expect(deepestChain()).toEqual({ depth: 3, chain: ['request GET /a', 'rpc X.run', 'rpc Y.step'] });
    expect(deepestChain('rpc X.')).toEqual({ depth: 2, chain: ['request GET /a', 'rpc X.run'] });
    expect(deepestChain('alarm ')).toEqual({ depth: 0, chain: [] });
    forgetDeepest();
    expect(deepestChain().depth).toBe(0);
  });
});

describe('SQL statements (D1 and Durable Object SQLite)', () => {
  it('SQL statement length: over 100,000 bytes of text fails', () => {
    checkStatement(`SELECT '${'x'.repeat(99_990)}'`, [], 'test');
    expect(breachOf(() => checkStatement(`SELECT '${'x'.repeat(100_000)}'`, [], 'test'))).toEqual({
      limit: 'SQL statement length (bytes)',
      count: 100_009,
      max: 100_000,
    });
  });

  it('SQL bound parameters per query: 101 fail', () => {
    checkStatement('SELECT 1', Array(100).fill(1), 'test');
    expect(breachOf(() => checkStatement('SELECT 1', Array(101).fill(1), 'test'))).toEqual({ limit: 'SQL bound parameters per query', count: 101, max: 100 });
  });

  it('SQL string or BLOB size: a value over 2,000,000 bytes as UTF-8 fails, though fewer characters', () => {
    const euros = '€'.repeat(666_667); // 2,000,001 bytes in 666,667 characters
    expect(breachOf(() => checkStatement('SELECT ?', [euros], 'test'))).toEqual({ limit: 'SQL string or BLOB size (bytes)', count: 2_000_001, max: 2_000_000 });
    expect(breachOf(() => checkStatement('SELECT ?', [new Uint8Array(2_000_001)], 'test')).count).toBe(2_000_001);
  });

  it('SQL row size: the values bound into one written row over 2,000,000 bytes fail; a read is not a row', () => {
    const half = 'x'.repeat(1_000_000);
    checkStatement('SELECT ?, ?, ?', [half, half, 7], 'test');
    expect(breachOf(() => checkStatement('INSERT INTO t (a, b, c) VALUES (?, ?, ?)', [half, half, 7], 'test'))).toEqual({
      limit: 'SQL row size (bytes, bound values of one row)',
      count: 2_000_008,
      max: 2_000_000,
    });
    expect(breachOf(() => checkStatement('UPDATE t SET a = ?, b = ? WHERE id = ?', [half, half, 7], 'test')).count).toBe(2_000_008);
  });

  it('SQL row size: each tuple of a multi-row INSERT is its own row, an upsert SET value counts in each', () => {
    const half = 'x'.repeat(1_000_000);
    checkStatement('INSERT INTO t (a, b) VALUES (?, ?), (?, ?)', [half, 1, half, 2], 'test');
    expect(rowGroups("INSERT INTO t (a, b) VALUES (?, '(?)'), (?, ?) ON CONFLICT DO UPDATE SET b = ?", [1, 2, 3, 4])).toEqual([
      [1, 4],
      [2, 3, 4],
    ]);
  });
});

describe('payload sizes', () => {
  it('UTF-8 sizes count characters outside ASCII as encoded', () => {
    expect(utf8Bytes('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(cloneBytes({ a: 'é', b: [1, null] })).toBeGreaterThan(utf8Bytes('é'));
  });

  it('Queue message size: a message over 128 KB (with its ~100 bytes of metadata) fails', () => {
    checkQueueMessage({ data: 'x'.repeat(127_000) }, 'test');
    expect(breachOf(() => checkQueueMessage({ data: 'x'.repeat(128_000) }, 'test')).limit).toBe('Queue message size (bytes)');
  });

  it('Queue sendBatch messages: 101 messages in one call fail', () => {
    expect(breachOf(() => checkSendBatch(Array(101).fill({ kind: 'k' }), 'test'))).toEqual({ limit: 'Queue sendBatch messages', count: 101, max: 100 });
  });

  it('Queue sendBatch size: messages over 256 KB together fail though each fits', () => {
    const message = { data: 'x'.repeat(90_000) };
    checkSendBatch([message, message], 'test');
    expect(breachOf(() => checkSendBatch([message, message, message], 'test')).limit).toBe('Queue sendBatch size (bytes)');
  });
});
