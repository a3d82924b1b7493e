import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SqlDatabase } from '../../durable-objects/sql-database';
import type { HistoryDb } from './history-db';
import { historyChangeStatements, type HistoryChange } from './history-changes';
import type { ForwardRecord } from './record';
import { forwardQueueStub } from '../platform/object-stubs';

const owner = { serviceId: `changes-${crypto.randomUUID()}`, callerKey: 'v:changes' };
const record = (id: string, status: ForwardRecord['status'] = 'resolved'): ForwardRecord => ({
  id,
  method: 'GET',
  url: 'https://example.com/',
  queue_name: 'q',
  status,
  created: 1,
  updated: 2,
});
const put = (id: string, status?: ForwardRecord['status']): HistoryChange => ({ op: 'put', owner, record: record(id, status) });
const del = (id: string): HistoryChange => ({ op: 'delete', owner, address: { method: 'GET', url: 'https://example.com/', id } });

/** Runs `test` over the caller's history in its object (where the outbox's changes are written). */
const inHistory = <T>(test: (db: HistoryDb) => Promise<T>) =>
  runInDurableObject(forwardQueueStub(env, owner), (_instance, state: DurableObjectState) => test(new SqlDatabase(state.storage)));

async function rows(db: HistoryDb): Promise<Record<string, string>> {
  const { results } = await db
    .prepare('SELECT id, status FROM forward_requests WHERE service_id = ?')
    .bind(owner.serviceId)
    .all<{ id: string; status: string }>();
  return Object.fromEntries(results.map((row) => [row.id, row.status]));
}

describe("history changes to the caller's history", () => {
  it("keep each request's order while puts and deletes of other requests share one statement each", async () => {
    await inHistory(async (db) => {
      const changes = [put('a', 'pending'), put('b'), del('a'), put('a', 'failed'), del('b'), put('c')];
      const statements = await historyChangeStatements(db, env.BODIES, changes);
      // [put a, put b] [delete a] [put a, put c] [delete b]: a meeting its own delete cuts the group.
      expect(statements).toHaveLength(4);
      await db.batch(statements);
      expect(await rows(db)).toEqual({ a: 'failed', c: 'resolved' });
    });
  });

  it('100 deletes of different requests are one statement (one statement of the export)', async () => {
    await inHistory(async (db) => {
      const ids = Array.from({ length: 100 }, (_, i) => `gone-${i}`);
      await db.batch(
        await historyChangeStatements(
          db,
          env.BODIES,
          ids.map((id) => put(id)),
        ),
      );
      const statements = await historyChangeStatements(db, env.BODIES, ids.map(del));
      expect(statements).toHaveLength(1);
      await db.batch(statements);
      expect(Object.keys(await rows(db)).filter((id) => id.startsWith('gone-'))).toEqual([]);
    });
  });
});
