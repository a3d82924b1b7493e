import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { historyChangeStatements, type HistoryChange } from './history-changes';
import type { ForwardRecord } from './record';

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

async function rows(): Promise<Record<string, string>> {
  const { results } = await env.DB.prepare('SELECT id, status FROM forward_requests WHERE service_id = ?').bind(owner.serviceId).all<{ id: string; status: string }>();
  return Object.fromEntries(results.map((row) => [row.id, row.status]));
}

describe('history changes to D1', () => {
  it("keep each request's order while puts and deletes of other requests share one statement each", async () => {
    const changes = [put('a', 'pending'), put('b'), del('a'), put('a', 'failed'), del('b'), put('c')];
    const statements = await historyChangeStatements(env.DB, env.BODIES, changes);
    // [put a, put b] [delete a] [put a, put c] [delete b]: a meeting its own delete cuts the group.
    expect(statements).toHaveLength(4);
    await env.DB.batch(statements);
    expect(await rows()).toEqual({ a: 'failed', c: 'resolved' });
  });

  it('100 deletes of different requests are one statement (one D1 query of the export)', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `gone-${i}`);
    await env.DB.batch(await historyChangeStatements(env.DB, env.BODIES, ids.map((id) => put(id))));
    const statements = await historyChangeStatements(env.DB, env.BODIES, ids.map(del));
    expect(statements).toHaveLength(1);
    await env.DB.batch(statements);
    expect(Object.keys(await rows()).filter((id) => id.startsWith('gone-'))).toEqual([]);
  });
});
