/**
 * Forward history has a default lifetime (issue 24, item 4): a row is kept 30 days after its last change
 * unless the caller's `expires` says otherwise, and the cleanup removes expired rows in bounded runs (at
 * most STATEMENTS_PER_RUN deletes each) that keep up with what forwarding writes.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_CLEANUP_KIND, HISTORY_LIFETIME_DAYS, ROWS_PER_STATEMENT, STATEMENTS_PER_RUN, sweepExpiredHistory } from '../../src/forward/history-cleanup';
import { createProject, type TestProject } from '../helpers/api';
import { historyOf } from './history-store';
import { eventually, forward, origin, settledEnvelope, uniquePath } from './support';

const DAY_MS = 86_400_000;

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const expiryOf = (id: string) =>
  historyOf(project.service_id)
    .prepare('SELECT updated, expires_at FROM forward_requests WHERE service_id = ? AND id = ?')
    .bind(project.service_id, id)
    .first<{ updated: number; expires_at: number | null }>();

describe('the default lifetime of forward history', () => {
  it('a request sent without expires is kept 30 days after its last change, direct or queued', async () => {
    expect(HISTORY_LIFETIME_DAYS).toBe(30);
    const url = `${origin}${uniquePath('/echo/lifetime')}`;
    const direct = await forward(project, { url, method: 'POST', data: { n: 1 } });
    const directRow = await expiryOf(direct.headers.get('x-svc-request-id')!);
    expect(directRow!.expires_at).toBe(directRow!.updated + 30 * DAY_MS);
    const queued = await forward(project, { url, method: 'POST', queue: 'lifetime', data: { n: 2 } });
    await settledEnvelope(project, { id: queued.json.id, url, method: 'POST' });
    const settled = await expiryOf(queued.json.id);
    expect(settled!.expires_at).toBe(settled!.updated + 30 * DAY_MS);
  });

  it("the caller's expires still decides, shorter or longer than the default", async () => {
    const url = `${origin}${uniquePath('/echo/lifetime')}`;
    for (const seconds of [60, 90 * 86_400]) {
      const before = Date.now();
      const res = await forward(project, { url, method: 'POST', data: { seconds }, expires: seconds });
      const row = await expiryOf(res.headers.get('x-svc-request-id')!);
      expect(row!.expires_at).toBeGreaterThanOrEqual(before + seconds * 1000);
      expect(row!.expires_at).toBeLessThanOrEqual(Date.now() + seconds * 1000);
    }
  });
});

describe('the cleanup of expired history', () => {
  const SERVICE = `cleanup-rate-${crypto.randomUUID()}`;
  const now = Date.UTC(2026, 10, 26, 3, 17);
  // A small budget so a few runs are needed (the default spends STATEMENTS_PER_RUN); N is not a multiple
  // of a run's capacity, so the last run is a short one.
  const BUDGET = 1;
  const EXPIRED = 2 * BUDGET * ROWS_PER_STATEMENT + 7_345;
  const LIVE = 1_000;

  /** `n` rows of 1.4 KB of bodies (a direct 1 KB / 1.4 KB request), expiring at `expiresAt`. */
  const rows = (prefix: string, n: number, expiresAt: number) =>
    env.DB.prepare(
      `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
       INSERT INTO forward_requests (service_id, caller_key, method, url, id, status, created, updated, request_body, response_body, expires_at)
       SELECT ?, 'v:rate', 'POST', 'https://example.com/', printf('%s%08d', ?, i), 'resolved', 1, 1, hex(randomblob(300)), hex(randomblob(400)), ? FROM k`,
    ).bind(n, SERVICE, prefix, expiresAt);

  it('a run spends far fewer statements than the 50 queries a Free invocation may make', () => {
    expect(STATEMENTS_PER_RUN + 1).toBeLessThanOrEqual(25);
  });

  it(`removes every expired row within ceil(N / (budget x ${ROWS_PER_STATEMENT})) runs of at most the budget's statements, and nothing else`, async () => {
    await rows('e', EXPIRED, now - 1).run();
    await rows('l', LIVE, now + 1).run();
    const started = performance.now();
    let runs = 0;
    let removed = 0;
    for (let more = true; more; runs++) {
      const result = await sweepExpiredHistory(env.DB, now, BUDGET);
      expect(result.statements).toBeLessThanOrEqual(BUDGET);
      removed += result.removed;
      more = result.more;
      expect(runs, 'runs').toBeLessThan(10);
    }
    const seconds = (performance.now() - started) / 1000;
    expect(runs).toBe(Math.ceil(EXPIRED / (BUDGET * ROWS_PER_STATEMENT)));
    expect(removed).toBe(EXPIRED);
    const left = await env.DB.prepare('SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM forward_requests WHERE service_id = ?')
      .bind(SERVICE)
      .first<{ n: number; first: number }>();
    expect(left).toEqual({ n: LIVE, first: now + 1 });
    // The measurement the capacity model uses (docs/decisions.md): not asserted, a test is no benchmark.
    console.log(`forward history cleanup: ${removed} rows in ${runs} runs, ${seconds.toFixed(2)} s, ${Math.round(removed / seconds)} rows/s`);
  });

  it('a continuation message on the work queue runs the cleanup on', async () => {
    await rows('q', 25, now - 1).run();
    await env.WORK_QUEUE.send({ kind: HISTORY_CLEANUP_KIND, now });
    const expired = () =>
      env.DB.prepare('SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND expires_at <= ?').bind(SERVICE, now).first<{ n: number }>();
    await eventually('the queued cleanup removed the expired rows', async () => (await expired())!.n === 0);
  });
});
