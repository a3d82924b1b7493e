/**
 * Issue 25 item 3, rows fit: every row written for a forwarded request fits Cloudflare's 2,000,000 bytes as
 * encoded, whatever its bodies (strict mode checks each statement as well), and an export batch holding one
 * entry that can never be written writes the rest and dead-letters that one.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ForwardQueueDO } from '../../durable-objects/forward-queue-do';
import { neverFits, type Outbox } from '../../durable-objects/outbox';
import type { JobPayloads } from '../../durable-objects/job-table';
import { LimitBreach } from '../../src/platform/strict-limits';
import { MAX_FORWARD_ANSWER_BYTES, MAX_FORWARD_DATA_BYTES, MAX_MULTIPART_CHARS } from '../../schemas/forward-rules';
import { createProject, type TestProject } from '../helpers/api';
import { historyOf } from './history-store';
import { eventually, forward, heldAtGate, history, loopback, origin, runCallerJobsNow, settledEnvelope, uniquePath, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

const ROW_LIMIT = 2_000_000;

let project: TestProject;
// These requests move megabytes to the loopback server: the production call limit (10 s), not the suite's 2 s.
const suiteCallLimit = env.OUTBOUND_CALL_MS;
beforeAll(async () => {
  env.OUTBOUND_CALL_MS = '10000';
  project = await createProject();
});
afterAll(() => {
  env.OUTBOUND_CALL_MS = suiteCallLimit;
});

/** Bytes of each column as SQLite stores it, summed per row: the largest row of each table of the caller's object. */
async function largestRows(): Promise<Record<string, number>> {
  const stub = forwardQueueStub(env, await visitorOwner(project));
  return runInDurableObject(stub, (_instance, state) => {
    const sizes: Record<string, number> = {};
    for (const table of ['requests', 'request_texts', 'outbox', 'outbox_pieces', 'jobs']) {
      const columns = state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
        .toArray()
        .map((c) => c.name);
      const sum = columns.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 8)`).join(' + ');
      sizes[table] = state.storage.sql.exec<{ n: number | null }>(`SELECT max(${sum}) AS n FROM ${table}`).one().n ?? 0;
    }
    return sizes;
  });
}

const multipartAtCap = () => {
  const bytes = new Uint8Array((MAX_MULTIPART_CHARS / 4) * 3).map((_, i) => (i * 31 + 7) % 256);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return { bytes, base64: btoa(binary) };
};

const hex = async (bytes: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** The request's history row (in the caller's object): where its bodies are. */
const d1Row = (url: string, id: string) =>
  historyOf(project.service_id)
    .prepare('SELECT status, body_segment, request_body, response_body FROM forward_requests WHERE service_id = ? AND url = ? AND id = ?')
    .bind(project.service_id, url, id)
    .first<{ status: string; body_segment: string | null; request_body: string | null; response_body: string | null }>();

describe('rows fit', () => {
  it('a queued multipart request at its cap is stored once, beside its row (no row over 2,000,000 bytes), and sent whole', async () => {
    const gate = crypto.randomUUID();
    const queue = `mp-${gate}`;
    const held = await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'POST', queue });
    expect(held.status, held.text).toBe(200);
    await heldAtGate(gate);
    const { bytes, base64 } = multipartAtCap();
    expect(base64.length).toBe(MAX_MULTIPART_CHARS);
    const url = `${origin}/digest`;
    const res = await forward(project, { url, method: 'POST', queue, multipart: { content_type: 'multipart/form-data; boundary=cap', base64 } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    // While it waits: the body is in the object once, in pieces, and every row fits.
    const waiting = await largestRows();
    for (const [table, size] of Object.entries(waiting)) expect(size, table).toBeLessThan(ROW_LIMIT);
    expect(waiting.requests).toBeLessThan(20_000);
    await loopback(`/gate/open/${gate}`);
    const done = await settledEnvelope(project, { id: res.json.id, url, method: 'POST' });
    expect(done.status, JSON.stringify(done).slice(0, 300)).toBe('resolved');
    expect(done.response_body).toEqual({ method: 'POST', contentType: 'multipart/form-data; boundary=cap', bytes: bytes.length, sha256: await hex(bytes) });
  }, 60_000);

  for (const queued of [true, false]) {
    it(`a ${queued ? 'queued' : 'direct'} request with 1 MiB of data and a 1 MiB answer: every row fits, the bodies go to R2 beside the history row, and both are listed whole`, async () => {
      const url = `${origin}${uniquePath('/sized/' + MAX_FORWARD_ANSWER_BYTES)}`.replace(/\/[^/]+$/, '');
      const data = 'd'.repeat(MAX_FORWARD_DATA_BYTES - 2);
      const res = await forward(project, { url, method: 'POST', data, ...(queued ? { queue: `big-${crypto.randomUUID()}` } : {}) });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const id = queued ? (res.json.id as string) : res.headers.get('x-svc-request-id')!;
      if (queued) {
        const done = await settledEnvelope(project, { id, url, method: 'POST' });
        expect(done.status, JSON.stringify(done).slice(0, 300)).toBe('resolved');
        expect(done.response_body).toBe('x'.repeat(MAX_FORWARD_ANSWER_BYTES));
        for (const [table, size] of Object.entries(await largestRows())) expect(size, table).toBeLessThan(ROW_LIMIT);
      }
      await eventually('the settled row is in the history', async () => (await d1Row(url, id))?.status === 'resolved');
      const row = (await d1Row(url, id))!;
      expect(row.body_segment).not.toBeNull();
      expect([row.request_body, row.response_body]).toEqual([null, null]);
      // Each state written (queued: pending, running, settled) had a segment of its own; all but the row's are due for the cleanup.
      const { results: segments } = await historyOf(project.service_id)
        .prepare('SELECT key, expires_at FROM forward_segments WHERE key LIKE ?')
        .bind(`%/alone-${id}-%`)
        .all<{ key: string; expires_at: number }>();
      if (queued) expect(segments.length).toBeGreaterThan(1);
      expect(segments.filter((segment) => segment.expires_at > Date.now()).map((segment) => segment.key)).toEqual([row.body_segment]);
      const listed = await history(project, { url, method: 'POST', limit: '100' });
      expect(listed.status, listed.text.slice(0, 300)).toBe(200);
      const item = (listed.json.list as Array<Record<string, unknown>>).find((entry) => entry.id === id)!;
      expect(item.request_body === data).toBe(true);
      expect(item.response_body === 'x'.repeat(MAX_FORWARD_ANSWER_BYTES)).toBe(true);
      const compact = await history(project, { url, method: 'POST', limit: '100', compact: 'true' });
      const short = (compact.json.list as Array<Record<string, unknown>>).find((entry) => entry.id === id)!;
      expect([short.request_text, short.response_text]).toEqual(['d'.repeat(200), 'x'.repeat(200)]);
    }, 60_000);
  }

  it('an export batch with one entry that can never fit writes the rest and dead-letters that one, logged, never retried', async () => {
    const owner = await visitorOwner(project);
    const stub = forwardQueueStub(env, owner);
    const url = `${origin}/dead-letter/${crypto.randomUUID()}`;
    const record = (id: string, at: string) => ({ id, method: 'POST', url: at, queue_name: 'dl', status: 'resolved', created: 1, updated: Date.now() });
    // The middle one's url alone is over a SQLite value's 2,000,000 bytes (D1's and an object's): its row can never be written.
    const tooLong = `${url}/${'u'.repeat(ROW_LIMIT)}`;
    await runInDurableObject(stub, async (instance: ForwardQueueDO) => {
      const inside = instance as unknown as { keeper: { outbox: Outbox<unknown, JobPayloads> }; alarms: { arm(): Promise<void> } };
      const { outbox } = inside.keeper;
      const { alarms } = inside;
      outbox.add({ op: 'put', owner, record: record('a', url) });
      outbox.add({ op: 'put', owner, record: record('b', tooLong) });
      outbox.add({ op: 'put', owner, record: record('c', url) });
      await alarms.arm();
    });
    await runCallerJobsNow(project, ['export-history']);
    const ids = async () =>
      (
        await historyOf(project.service_id)
          .prepare('SELECT id FROM forward_requests WHERE service_id = ? AND url = ? ORDER BY id')
          .bind(project.service_id, url)
          .all<{ id: string }>()
      ).results.map((r) => r.id);
    await eventually('a and c reach the history', async () => (await ids()).join() === 'a,c');
    const after = await runInDurableObject(stub, (instance: ForwardQueueDO) => {
      const { outbox } = (instance as unknown as { keeper: { outbox: Outbox<unknown, JobPayloads> } }).keeper;
      return {
        pending: outbox.size(),
        dead: outbox.deadLetters().map((letter) => ({ ...letter, payload: JSON.parse(letter.payload) as { record: { id: string; url: string } } })),
      };
    });
    expect(after.pending).toBe(0);
    expect(after.dead).toHaveLength(1);
    expect(after.dead[0].payload.record.id).toBe('b');
    expect(after.dead[0].payload.record.url === tooLong).toBe(true);
    expect(after.dead[0].error).toContain('2000000');
  }, 60_000);

  it('only a size an entry can never fit dead-letters it; a spent invocation budget or an unreachable D1 leaves the batch for the next export', () => {
    expect(neverFits(new LimitBreach('SQL string or BLOB size (bytes)', 2_000_001, 2_000_000, 'alarm'))).toBe(true);
    expect(neverFits(new LimitBreach('SQL bound parameters per query', 101, 100, 'alarm'))).toBe(true);
    expect(neverFits(new Error('D1_ERROR: string or blob too big: SQLITE_TOOBIG'))).toBe(true);
    expect(neverFits(new LimitBreach('D1 queries per invocation', 1001, 1000, 'alarm'))).toBe(false);
    expect(neverFits(new LimitBreach('subrequests per invocation', 10_001, 10_000, 'alarm'))).toBe(false);
    expect(neverFits(new Error('Network connection lost.'))).toBe(false);
  });
});
