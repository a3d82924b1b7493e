/**
 * Issue 26 item 2: failures cannot fill storage. Per ticket and minute, failed consumptions and dry runs are
 * kept whole up to a count per kind and a byte budget, then counted in one summary entry per kind; successes
 * are always kept. Driven on the ticket's store with a fixed clock, so a minute is exactly one.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SAMPLING_FLUSH_MS } from '../../src/ticket-log/log-sampler';
import { TicketStore } from '../../durable-objects/ticket-store';
import type { LogRow } from '../../src/ticket-log/log-row';
import {
  ENTRY_OVERHEAD_BYTES,
  FAILURE_LOG_BYTES_PER_MINUTE,
  SAMPLED_BYTES_PER_MINUTE,
  SAMPLED_KINDS_PER_MINUTE,
  SAMPLED_WHOLE_PER_KIND,
} from '../../src/ticket-log/log-sampling';
import { logRow } from '../logs/log-helpers';
import { withoutMetricJobs } from '../actions/run-support';

const MINUTE = 60_000;
const T0 = 1_800_000 * MINUTE;
let n = 0;
const key = () => `K${String(n++).padStart(9, '0')}`;

/** A failed consumption of `field` with `code`, its kept request carrying `pad` characters of body. */
const failed = (at: number, field: string, code = 'CONDITION_FAILED', pad = 100): LogRow => {
  const id = key();
  return logRow('svc-sample', 'flooded', id, at, {
    failed: true,
    code,
    description: { outcome: { ok: false, code, message: `The ${field} did not match.`, stage: 'condition', detail: { field } } },
    request: {
      method: 'POST',
      headers: {},
      search: '',
      body: { text: 'x'.repeat(pad) },
      ip: '192.0.2.1',
      user_agent: 'flood',
      signed_route: false,
      long_form: false,
      received_at: at,
    },
  });
};
const passed = (at: number) => logRow('svc-sample', 'flooded', key(), at);
const dryRun = (at: number) => {
  const id = key();
  return logRow('svc-sample', 'flooded', `${id}:CHK`, at, { consume_id: id, is_check: true, description: { outcome: { ok: true }, check: true } });
};

/** Runs `body` on a fresh ticket object's store; `newStore()` opens another store on the same storage (as a new instance would after an eviction). */
const onStore = <T>(body: (store: TicketStore, newStore: () => TicketStore, writes: string[]) => T | Promise<T>) =>
  runInDurableObject(env.TICKETS.get(env.TICKETS.newUniqueId()), async (_instance, state) => {
    // Every statement that may write, as the store sends it.
    const writes: string[] = [];
    const sql = state.storage.sql;
    const counting = new Proxy(sql, {
      get: (target, name) =>
        name === 'exec'
          ? (query: string, ...args: unknown[]) => {
              if (!/^\s*SELECT/i.test(query)) writes.push(query.trim());
              return target.exec(query, ...args);
            }
          : Reflect.get(target, name, target),
    });
    const newStore = () => {
      const store = new TicketStore(counting, env.BODIES, () => T0);
      store.log.bind({ service_id: 'svc-sample', ticket_id: 'flooded', plan: 'free' });
      return store;
    };
    return body(newStore(), newStore, writes);
  });

const listed = async (store: TicketStore) => (await store.log.all()).map((e) => e.body);
const summaries = async (store: TicketStore) => (await listed(store)).filter((b) => b.description.sampled !== undefined);

describe('failed consumptions past their rate are counted, not kept (issue 26 item 2)', () => {
  it(`the first ${SAMPLED_WHOLE_PER_KIND} failures of a kind in a minute are kept whole; the rest are one entry "N more failed with CONDITION_FAILED (signature) in this minute"`, async () => {
    await onStore(async (store) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 50; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      const bodies = await listed(store);
      expect(bodies.filter((b) => b.description.sampled === undefined)).toHaveLength(SAMPLED_WHOLE_PER_KIND);
      const [summary] = await summaries(store);
      expect(summary.failed).toBe(true);
      expect(summary.description.sampled).toMatchObject({
        more: 50,
        text: '50 more failed with CONDITION_FAILED (signature) in this minute',
        code: 'CONDITION_FAILED',
        field: 'signature',
      });
      expect(summary.description.outcome).toMatchObject({
        ok: false,
        code: 'CONDITION_FAILED',
        message: '50 more failed with CONDITION_FAILED (signature) in this minute',
      });
    });
  });

  it('every distinct failure kind keeps an example, even once the kinds of the minute are counted together', async () => {
    await onStore(async (store) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 1; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      store.enqueueLog(failed(T0 + 500, 'params'), []);
      store.enqueueLog(failed(T0 + 501, 'body', 'TICKET_EXPIRED'), []);
      const bodies = await listed(store);
      expect(
        bodies.filter((b) => b.code === 'CONDITION_FAILED' && (b.description.outcome as { detail?: { field: string } }).detail?.field === 'params'),
      ).toHaveLength(1);
      expect(bodies.filter((b) => b.code === 'TICKET_EXPIRED')).toHaveLength(1);
      const [summary] = await summaries(store);
      expect(summary.description.sampled).toMatchObject({ more: 1, example: { outcome: { code: 'CONDITION_FAILED', detail: { field: 'signature' } } } });
    });
  });

  it('successful consumptions are always kept whole, however many arrive in a minute', async () => {
    await onStore(async (store) => {
      for (let i = 0; i < 3 * SAMPLED_WHOLE_PER_KIND; i++) store.enqueueLog(passed(T0 + i), []);
      expect(store.log.count()).toBe(3 * SAMPLED_WHOLE_PER_KIND);
      expect(await summaries(store)).toEqual([]);
    });
  });

  it('dry runs likewise: past their rate, "N more dry runs passed in this minute"', async () => {
    await onStore(async (store) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 3; i++) store.enqueueLog(dryRun(T0 + i), []);
      const [summary] = await summaries(store);
      expect(summary.description).toMatchObject({
        outcome: { ok: true },
        check: true,
        sampled: { more: 3, text: '3 more dry runs passed in this minute', code: null },
      });
      const page = await store.log.page({ from: 0, to: Number.MAX_SAFE_INTEGER, after: null, count: 10, outcome: 'check' });
      expect(page.some((e) => e.body.description.sampled !== undefined)).toBe(true);
    });
  });

  it('a new minute keeps failures whole again and closes the last minute’s summary; the counts per minute are kept', async () => {
    await onStore(async (store) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 10; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      store.enqueueLog(failed(T0 + MINUTE, 'signature'), []);
      expect((await listed(store)).length).toBe(SAMPLED_WHOLE_PER_KIND + 1 + 1);
      expect(store.sampler.minutes(0)).toEqual([{ minute: T0 / MINUTE, limited: 0, sampled: 10 }]);
    });
  });

  it(`a flood of failures of ${SAMPLED_KINDS_PER_MINUTE + 4} kinds with 60 KiB bodies writes at most ${FAILURE_LOG_BYTES_PER_MINUTE} bytes in a minute`, async () => {
    await onStore(async (store) => {
      for (let i = 0; i < 3_000; i++)
        store.enqueueLog(failed(T0 + (i % MINUTE), `field${i % (SAMPLED_KINDS_PER_MINUTE + 4)}`, 'CONDITION_FAILED', 60 * 1024), []);
      for (let i = 0; i < 300; i++) store.enqueueLog(dryRun(T0 + i), []);
      const bytes = store.log.storedBytes(ENTRY_OVERHEAD_BYTES);
      expect(bytes).toBeLessThanOrEqual(FAILURE_LOG_BYTES_PER_MINUTE);
      // The budget was reached: the bound is not met by keeping nothing.
      expect(bytes).toBeGreaterThan(SAMPLED_BYTES_PER_MINUTE - 62 * 1024);
      const counted = (await summaries(store)).reduce((sum, b) => sum + (b.description.sampled as { more: number }).more, 0);
      expect(counted + store.log.count() - (await summaries(store)).length).toBe(3_300);
    });
  });

  it('a counted entry writes nothing at once: its count is held in memory, in what the log reads, and a flush is scheduled within a second', async () => {
    await onStore(async (store, _newStore, writes) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 1; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      writes.length = 0;
      for (let i = 0; i < 100; i++) store.enqueueLog(failed(T0 + 1_000 + i, 'signature'), []);
      // The only write of 100 counted entries: the job that flushes them.
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/^INSERT INTO jobs/);
      expect(
        store.jobs
          .all()
          .filter((job) => job.kind === 'flush-sampling')
          .map((job) => job.run_at),
      ).toEqual([T0 + SAMPLING_FLUSH_MS]);
      // Reading the log writes the held counts first.
      const [summary] = await summaries(store);
      expect(summary.description.sampled).toMatchObject({
        more: 101,
        last_at: T0 + 1_099,
        text: '101 more failed with CONDITION_FAILED (signature) in this minute',
      });
    });
  });

  it("the flush (the object's alarm) writes the held counts: a new instance on the same storage, as after an eviction, reads them and counts on", async () => {
    await onStore(async (store, newStore) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 50; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      store.sampler.flush();
      const after = newStore();
      expect((await summaries(after))[0].description.sampled).toMatchObject({ more: 50 });
      for (let i = 0; i < 10; i++) after.enqueueLog(failed(T0 + 500 + i, 'signature'), []);
      expect((await summaries(after))[0].description.sampled).toMatchObject({ more: 60 });
      expect(after.sampler.minutes(0)).toEqual([{ minute: T0 / MINUTE, limited: 0, sampled: 60 }]);
    });
  });

  it('counts held when the log is cleared go to a new summary, from the first entry held', async () => {
    await onStore(async (store) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 5; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      await store.log.deleteBefore(T0 + 1_000);
      expect(await summaries(store)).toEqual([]);
      for (let i = 0; i < 7; i++) store.enqueueLog(failed(T0 + 2_000 + i, 'signature'), []);
      const [summary] = await summaries(store);
      expect(summary.description.sampled).toMatchObject({ more: 7, last_at: T0 + 2_006 });
      expect(summary.consume_id).toMatch(/:MORE$/);
    });
  });

  it("a new minute writes the last minute's held counts into its summary before closing it", async () => {
    await onStore(async (store) => {
      for (let i = 0; i < SAMPLED_WHOLE_PER_KIND + 30; i++) store.enqueueLog(failed(T0 + i, 'signature'), []);
      store.enqueueLog(failed(T0 + MINUTE, 'signature'), []);
      const [summary] = await summaries(store);
      expect(summary.description.sampled).toMatchObject({ more: 30 });
    });
  });

  it("the ticket's object's alarm writes the held counts to storage", async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (instance) => {
      const data = instance['data'];
      data.log.bind({ service_id: 'svc-sample', ticket_id: 'flooded', plan: 'free' });
      // 60 KiB bodies: the minute's bytes are spent after 8 whole entries, far from a segment's worth (no packing job reads the log).
      for (let i = 0; i < 20; i++) data.enqueueLog(failed(T0 + i, 'signature', 'CONDITION_FAILED', 60 * 1024), []);
      expect(data.sampler['held'].size).toBe(1);
      expect(withoutMetricJobs(data.jobs.all()).map((job) => job.kind)).toEqual(['flush-sampling']);
      await instance['alarms'].arm();
    });
    await runDurableObjectAlarm(stub);
    const stored = await runInDurableObject(stub, (instance, state) => {
      expect(instance['data'].sampler['held'].size).toBe(0);
      // Straight from SQLite, past the log's own reads (which would write held counts first).
      const whole = state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM log WHERE log_key NOT LIKE '%:MORE'").one().n;
      const more = state.storage.sql
        .exec<{ n: number }>("SELECT json_extract(body, '$.description.sampled.more') AS n FROM log_bodies WHERE log_key LIKE '%:MORE'")
        .one().n;
      return { whole, more };
    });
    expect(stored.whole).toBeLessThan(10);
    expect(stored.whole + stored.more).toBe(20);
  });
});
