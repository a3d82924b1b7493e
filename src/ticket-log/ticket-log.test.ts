/**
 * The ticket's log in its object (src/ticket-log/ticket-log.ts): bodies packed into R2 segments, what a
 * failed R2 write leaves, and how fast a clear or retention removes what was written.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SEGMENT_ENTRIES, TicketLog } from './ticket-log';
import { TicketStore } from '../../durable-objects/ticket-store';
import { logRow } from '../../test/logs/log-helpers';

const scope = (ticketId: string) => ({ service_id: 'svc-log', ticket_id: ticketId, plan: 'free' });
const entry = (ticketId: string, i: number, timestamp = 1_000 + i) => ({
  row: { ...logRow('svc-log', ticketId, `K${String(i).padStart(7, '0')}`, timestamp), request: { body: { text: 'x'.repeat(200) } } as never },
  actions: [{ seq: 0, path: 'actions[0]', act: 'req', detail: { received: { status: 200 } } }],
});

/** R2 as it is during an outage: writes fail, reads and deletes go through. */
const r2WritesFail = {
  put: async () => {
    throw new Error('R2 is unavailable');
  },
  get: (key: string) => env.BODIES.get(key),
  delete: (keys: string | string[]) => env.BODIES.delete(keys),
} as unknown as R2Bucket;

const segmentKeys = async (ticketId: string) => (await env.BODIES.list({ prefix: `logs/d30/svc-log/${ticketId}/` })).objects.map((o) => o.key);

describe("a ticket's log in its object", () => {
  it(`packs the bodies of ${SEGMENT_ENTRIES} entries of one outcome into one R2 segment, and a page reads them back whole`, async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 5_000);
      store.log.bind(scope('packed'));
      for (let i = 0; i < SEGMENT_ENTRIES + 5; i++) store.enqueueLog(entry('packed', i).row, entry('packed', i).actions);
      expect(store.log.compactionDue()).toBe(true);
      expect(await store.log.compact()).toBe(false);
      expect(await segmentKeys('packed')).toEqual(['logs/d30/svc-log/packed/1']);
      const inSqlite = state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM log_bodies').one().n;
      expect(inSqlite).toBe(5);
      const page = await store.log.page({ from: 0, to: Number.MAX_SAFE_INTEGER, after: null, count: 100 });
      expect(page).toHaveLength(100);
      expect(page.every((e) => e.body.request !== undefined && e.body.actions.length === 1)).toBe(true);
    });
  });

  it('an R2 write that fails loses nothing: the bodies stay in SQLite, are listed, and go out on the next try', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 5_000);
      store.log.bind(scope('outage'));
      for (let i = 0; i < SEGMENT_ENTRIES; i++) store.enqueueLog(entry('outage', i).row, entry('outage', i).actions);
      const down = new TicketLog(state.storage.sql, r2WritesFail, () => 5_000);
      await expect(down.compact()).rejects.toThrow('R2 is unavailable');
      expect(await segmentKeys('outage')).toEqual([]);
      expect(state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM log_segments').one().n).toBe(0);
      expect((await down.all()).length).toBe(SEGMENT_ENTRIES);
      // R2 is back: the same bodies go out, once.
      expect(await store.log.compact()).toBe(false);
      expect(await segmentKeys('outage')).toEqual(['logs/d30/svc-log/outage/1']);
      expect((await store.log.all()).map((e) => e.index.log_key)).toHaveLength(SEGMENT_ENTRIES);
    });
  });

  it('a segment stored by a pack that did not finish (no index points at it) is overwritten by the next pack, never read', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      await env.BODIES.put('logs/d30/svc-log/orphan/1', '{"stale":{}}');
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 5_000);
      store.log.bind(scope('orphan'));
      for (let i = 0; i < SEGMENT_ENTRIES; i++) store.enqueueLog(entry('orphan', i).row, entry('orphan', i).actions);
      await store.log.compact();
      const segment = (await (await env.BODIES.get('logs/d30/svc-log/orphan/1'))!.json()) as Record<string, unknown>;
      expect(Object.keys(segment)).toHaveLength(SEGMENT_ENTRIES);
      expect(segment.stale).toBeUndefined();
    });
  });

  it('a clear or retention step removes 15,000 index rows and up to 1,000 segments; 50,000 entries go in a bounded number of steps', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    const report = await runInDurableObject(stub, async (_instance, state) => {
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 5_000);
      store.log.bind(scope('bulk'));
      const total = 50_000;
      const written = Date.now();
      for (let start = 0; start < total; start += 1_000) store.log.takeIn(Array.from({ length: 1_000 }, (_, j) => entry('bulk', start + j)));
      const writeMs = Date.now() - written;
      let packs = 0;
      while (await store.log.compact()) packs++;
      const started = Date.now();
      let steps = 1;
      while (await store.log.deleteBefore(Number.MAX_SAFE_INTEGER)) steps++;
      return { total, packs, steps, writeMs, deleteMs: Date.now() - started, left: store.log.count(), segments: (await segmentKeys('bulk')).length };
    });
    console.log(
      `retention of one ticket's log: ${report.total} entries (${report.packs + 1} segments) removed in ${report.steps} steps, ${report.deleteMs} ms ` +
        `(${Math.round((report.total / Math.max(report.deleteMs, 1)) * 1000)} entries/s; written at ${Math.round((report.total / Math.max(report.writeMs, 1)) * 1000)} entries/s)`,
    );
    expect(report.left).toBe(0);
    expect(report.segments).toBe(0);
    // 50,000 rows in one class at 5,000 per step (the chunk), plus the one that finds the rest empty.
    expect(report.steps).toBeLessThanOrEqual(11);
  }, 120_000);
});
