/**
 * Migration 0021 (issue 34 item 2): rows D1 held before the history moved into the callers' objects are
 * moved by each caller's object on its first history call, nothing lost: inline bodies, bodies waiting in
 * forward_bodies, bodies in an R2 segment and a segment placed alone, each read back whole through the
 * caller's history and the owner's view, and D1 keeps none of them afterwards.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_CALLERS_PER_RUN, wakeLegacyCallers } from '../../src/forward/history-cleanup';
import { callerHash, layOut } from '../../src/forward/history-segments';
import { call, createProject, type TestProject } from '../helpers/api';
import { history, origin, uniquePath, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
let url: string;
let segment: string;

/** The migration's own statement that lists the callers of the rows D1 holds. */
async function runMigrationListing(): Promise<void> {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0021_'))!;
  const listing = migration.queries.find((query) => query.trimStart().startsWith('INSERT INTO forward_callers'))!;
  // Run for this project only: other tests' callers are listed already.
  await env.DB.prepare(listing.replace('FROM forward_requests GROUP BY', 'FROM forward_requests WHERE service_id = ?1 GROUP BY'))
    .bind(project.service_id)
    .run();
}

const d1Count = async (table: string, where: string, value: string) =>
  (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).bind(value).first<{ n: number }>())!.n;

beforeAll(async () => {
  project = await createProject();
  url = `${origin}${uniquePath('/echo/legacy')}`;
  const owner = await visitorOwner(project);
  const row = (id: string, extra: string) =>
    env.DB.prepare(
      `INSERT INTO forward_requests (service_id, caller_key, method, url, id, queue_name, status, created, updated, status_code, stream, expires_at, ${extra.split('=')[0]})
       VALUES (?, ?, 'POST', ?, ?, NULL, 'resolved', 1000, 1000, 200, 0, ?, ?)`,
    ).bind(owner.serviceId, owner.callerKey, url, id, Date.now() + 86_400_000, extra.split('=').slice(1).join('='));
  // A segment as the compaction lays it out.
  segment = `fwd/segments/${owner.serviceId}/${await callerHash(owner.callerKey)}/0000c-test`;
  const { bytes, placed } = layOut([
    {
      method: 'POST',
      url,
      id: '0000c:cccccccccccccccc',
      updated: 1000,
      expires_at: null,
      request_body: '{"in":"segment"}',
      response_body: '"segment answer"',
      request_headers: '{"x-h":"1"}',
    },
  ]);
  await env.BODIES.put(segment, bytes);
  await env.DB.batch([
    row('0000a:aaaaaaaaaaaaaaaa', `request_body={"inline":true}`),
    row('0000b:bbbbbbbbbbbbbbbb', `status_code=200`),
    env.DB.prepare(
      `INSERT INTO forward_bodies (service_id, caller_key, method, url, id, request_body, response_body, request_headers) VALUES (?, ?, 'POST', ?, ?, ?, ?, '{}')`,
    ).bind(owner.serviceId, owner.callerKey, url, '0000b:bbbbbbbbbbbbbbbb', JSON.stringify({ waiting: 'x'.repeat(300) }), '"waiting answer"'),
    env.DB.prepare(
      `INSERT INTO forward_requests (service_id, caller_key, method, url, id, queue_name, status, created, updated, status_code, stream, expires_at, body_segment, body_at, body_len, compact)
       VALUES (?, ?, 'POST', ?, '0000c:cccccccccccccccc', NULL, 'resolved', 1000, 1000, 200, 0, ?, ?, 0, ?, ?)`,
    ).bind(owner.serviceId, owner.callerKey, url, Date.now() + 86_400_000, segment, placed[0].len, placed[0].compact),
    env.DB.prepare('INSERT INTO forward_segments (key, expires_at) VALUES (?, ?)').bind(segment, Date.now() + 86_400_000),
  ]);
  await runMigrationListing();
});

describe('migration 0021 moves the history D1 held into the callers\u2019 objects', () => {
  it("lists every row D1 held, bodies whole, through the caller's history and the owner's view; D1 then holds none", async () => {
    const mine = await history(project, { url, method: 'POST' });
    expect(mine.status, mine.text).toBe(200);
    expect(
      mine.json.list.map((item: { id: string; request_body: unknown; response_body: unknown }) => [item.id, item.request_body, item.response_body]),
    ).toEqual([
      ['0000c:cccccccccccccccc', { in: 'segment' }, 'segment answer'],
      ['0000b:bbbbbbbbbbbbbbbb', { waiting: 'x'.repeat(300) }, 'waiting answer'],
      ['0000a:aaaaaaaaaaaaaaaa', { inline: true }, null],
    ]);
    const owners = await call('GET', `/v1/projects/${project.service_id}/forward/requests?${new URLSearchParams({ url })}`, { token: project.owner_key });
    expect(owners.json.list.map((item: { id: string }) => item.id)).toEqual(['0000c:cccccccccccccccc', '0000b:bbbbbbbbbbbbbbbb', '0000a:aaaaaaaaaaaaaaaa']);
    expect(await d1Count('forward_requests', 'service_id = ?', project.service_id)).toBe(0);
    expect(await d1Count('forward_bodies', 'service_id = ?', project.service_id)).toBe(0);
    expect(await d1Count('forward_segments', 'key = ?', segment)).toBe(0);
    // The segment is the object's now: still in R2, and its history registers it.
    expect(await env.BODIES.head(segment)).not.toBeNull();
  });
});

describe("the cron's wake of callers no request reaches", () => {
  it('moves the rows of a caller nobody calls: its object is woken until D1 holds none of its rows', async () => {
    const other = await createProject();
    const owner = { serviceId: other.service_id, callerKey: 'v:never-called' };
    await env.DB.prepare(
      `INSERT INTO forward_requests (service_id, caller_key, method, url, id, queue_name, status, created, updated, stream, expires_at, request_body)
       VALUES (?, ?, 'GET', ?, '0000d:dddddddddddddddd', NULL, 'resolved', 1000, 1000, 0, ?, '"kept"')`,
    )
      .bind(owner.serviceId, owner.callerKey, `${origin}/echo/never-called`, Date.now() + 86_400_000)
      .run();
    // Other tests' legacy rows share the database: the wake takes LEGACY_CALLERS_PER_RUN callers a run.
    for (let run = 0; run < 50 && (await d1Count('forward_requests', 'service_id = ?', owner.serviceId)) > 0; run++) {
      expect(await wakeLegacyCallers(env.DB, (caller) => forwardQueueStub(env, caller).importHistory(caller))).toBeLessThanOrEqual(LEGACY_CALLERS_PER_RUN);
    }
    expect(await d1Count('forward_requests', 'service_id = ?', owner.serviceId)).toBe(0);
    const found = await forwardQueueStub(env, owner).historyFind(owner, { method: 'GET', url: `${origin}/echo/never-called`, id: '0000d:dddddddddddddddd' });
    const moved = found as unknown as { request_body?: string } | null;
    expect(moved?.request_body).toBe('"kept"');
  });
});
