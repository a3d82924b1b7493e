/**
 * Forward bodies out of the history's rows (issue 24): a minute after settled requests reached the history, their caller's
 * object moves their bodies and headers into one R2 segment per batch; its history row keeps where they are
 * and the compact texts. Every listing answers byte for byte as before, a compact listing reads no body, a page reads each
 * distinct segment once, and the caller's sweep deletes segments whose rows all expired.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { SqlDatabase } from '../../durable-objects/sql-database';
import { runHistorySweep } from '../../src/forward/history-cleanup';
import { historyOf } from './history-store';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { eventually, forward, history, origin, poll, runCallerJobsNow, uniquePath, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
let url: string;
let secretUrl: string;
const ids: string[] = [];
const SECRET = 'sk-segment-3kQz9Vw2Lp';
const big = (i: number) => ({ i, text: `${'é'.repeat(150)} ${'x'.repeat(200)} ${i}` });

const visitor = () => visitorOwner(project);
/** The caller's object's sweep of its history, run as if it were `now`. */
const sweepAt = async (now: number) =>
  runInDurableObject(forwardQueueStub(env, await visitor()), (_instance, state: DurableObjectState) =>
    runHistorySweep(new SqlDatabase(state.storage), env.BODIES, now),
  );

/** Runs the caller's compaction now (it runs a minute after the rows were written). */
const compactNow = () => runCallerJobsNow(project, ['compact-history']);

const ownerList = (query: Record<string, string>) =>
  call('GET', `/v1/projects/${project.service_id}/forward/requests?${new URLSearchParams(query)}`, { token: project.owner_key });

/** Every listing's text, page by page, full and compact; one request in full; a poll of a settled one. */
async function answers(): Promise<string[]> {
  const texts: string[] = [];
  for (const compact of ['false', 'true']) {
    for (const list of [
      (q: Record<string, string>) => history(project, { url, method: 'POST', ...q }),
      (q: Record<string, string>) => ownerList({ url, ...q }),
    ]) {
      let startKey: string | undefined;
      for (;;) {
        const res = await list({ limit: '4', compact, ...(startKey ? { startKey } : {}) });
        expect(res.status, res.text).toBe(200);
        texts.push(res.text);
        if (res.json.endOfList) break;
        startKey = res.json.startKey;
      }
    }
  }
  texts.push((await call('GET', `/v1/projects/${project.service_id}/forward/requests/${ids[0]}`, { token: project.owner_key })).text);
  texts.push((await poll(project, { id: ids[0], url, method: 'POST' })).text);
  return texts;
}

const rowsOf = () =>
  historyOf(project.service_id)
    .prepare('SELECT id, body_segment, request_body, response_body, request_headers FROM forward_requests WHERE service_id = ? AND url = ?')
    .bind(project.service_id, url)
    .all<{ id: string; body_segment: string | null; request_body: string | null; response_body: string | null; request_headers: string | null }>();

/** Rows whose bodies wait in their own table (migration 0016) until they move. */
const waitingBodies = async (of: string) =>
  (await historyOf(project.service_id)
    .prepare('SELECT COUNT(*) AS n FROM forward_bodies WHERE service_id = ? AND url = ?')
    .bind(project.service_id, of)
    .first<{ n: number }>())!.n;

beforeAll(async () => {
  project = await createProject();
  url = `${origin}${uniquePath('/echo/segments')}`;
  for (let i = 0; i < 9; i++) {
    const res = await forward(project, { url, method: 'POST', queue: `seg-${i % 3}`, data: big(i) });
    ids.push(res.json.id);
  }
  for (let i = 9; i < 12; i++) {
    const res = await forward(project, { url, method: 'POST', data: big(i) });
    ids.push(res.headers.get('x-svc-request-id')!);
  }
  // The destination echoes the key back in its answer: the kept answer has the token in its place.
  await putSecret(project, 'segment-key', SECRET);
  secretUrl = `${origin}${uniquePath('/echo/segments-secret')}`;
  await forward(project, {
    url: secretUrl,
    method: 'POST',
    secretName: 'segment-key',
    headers: { 'x-key': '$CLIENT_SECRET' },
    data: { ...big(99), key: '$CLIENT_SECRET' },
  });
  await eventually('every request settled in the history', async () => {
    const { results } = await historyOf(project.service_id)
      .prepare("SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND url = ? AND status = 'resolved'")
      .bind(project.service_id, url)
      .all<{ n: number }>();
    const secret = await historyOf(project.service_id)
      .prepare("SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND url = ? AND status = 'resolved'")
      .bind(project.service_id, secretUrl)
      .first<{ n: number }>();
    return results[0].n === 12 && secret!.n === 1;
  });
});

describe('forward bodies in R2 segments', () => {
  it('after the bodies move, every listing, page by page, full and compact, one request and a poll answer byte for byte as before', async () => {
    const before = await answers();
    // Written at their final size: the bodies wait in a table of their own, the rows hold none.
    expect((await rowsOf()).results.every((row) => row.body_segment === null && row.request_body === null && row.request_headers === null)).toBe(true);
    expect(await waitingBodies(url)).toBe(12);
    await compactNow();
    expect(await waitingBodies(url)).toBe(0);
    expect(await waitingBodies(secretUrl)).toBe(0);
    const { results } = await rowsOf();
    expect(results).toHaveLength(12);
    for (const row of results) expect(row).toMatchObject({ request_body: null, response_body: null, request_headers: null });
    // One compaction step took them all: one segment, so a page reads one object.
    expect(new Set(results.map((row) => row.body_segment)).size).toBe(1);
    expect(await answers()).toEqual(before);
  });

  it("a segment holds the key's token, never its value", async () => {
    const row = await historyOf(project.service_id)
      .prepare('SELECT body_segment FROM forward_requests WHERE service_id = ? AND url = ?')
      .bind(project.service_id, secretUrl)
      .first<{ body_segment: string }>();
    const text = await (await env.BODIES.get(row!.body_segment))!.text();
    expect(text).toContain('$CLIENT_SECRET');
    expect(text).not.toContain(SECRET);
  });

  it('a compact listing reads no body: it answers the same once the segments are gone from R2', async () => {
    const compactPage = async () => (await history(project, { url, method: 'POST', compact: 'true', limit: '100' })).text;
    const before = await compactPage();
    const { results } = await rowsOf();
    await env.BODIES.delete([...new Set(results.map((row) => row.body_segment!))]);
    expect(await compactPage()).toBe(before);
  });

  it('the cleanup deletes a segment from R2 once every row in it expired, and keeps the others', async () => {
    const now = Date.now();
    const expired = `fwd/segments/${project.service_id}/test/expired-${crypto.randomUUID()}`;
    const live = `fwd/segments/${project.service_id}/test/live-${crypto.randomUUID()}`;
    for (const key of [expired, live]) await env.BODIES.put(key, 'x');
    const caller = historyOf(project.service_id, [await visitor()]);
    await caller.batch([
      caller.prepare('INSERT INTO forward_segments (key, expires_at) VALUES (?, ?)').bind(expired, now - 1),
      caller.prepare('INSERT INTO forward_segments (key, expires_at) VALUES (?, ?)').bind(live, now + 60_000),
    ]);
    await sweepAt(now);
    expect(await env.BODIES.head(expired)).toBeNull();
    expect(await env.BODIES.head(live)).not.toBeNull();
    const kept = await caller.prepare('SELECT key FROM forward_segments WHERE key IN (?, ?)').bind(expired, live).all<{ key: string }>();
    expect(kept.results.map((row) => row.key)).toEqual([live]);
  });

  it('bodies still waiting in their own table leave with their row: an expired request removed by the cleanup takes them along', async () => {
    const shortUrl = `${origin}${uniquePath('/echo/segments-expiring')}`;
    const res = await forward(project, { url: shortUrl, method: 'POST', data: big(7), expires: 1 });
    expect(res.status, res.text).toBe(200);
    expect(await waitingBodies(shortUrl)).toBe(1);
    await sweepAt(Date.now() + 5_000);
    const left = await historyOf(project.service_id)
      .prepare('SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND url = ?')
      .bind(project.service_id, shortUrl)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    expect(await waitingBodies(shortUrl)).toBe(0);
  });
});
