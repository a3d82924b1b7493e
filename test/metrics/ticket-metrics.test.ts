/**
 * Extension (issue 37 item 1): a ticket's object counts every consumption, dry run and duplicate in memory,
 * and pushes the counts to D1's metric_points from its alarm; the owner reads them per ticket and per
 * project, with latency percentiles that merge exactly. The alarm's jobs are made due and run here.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, type TestProject } from '../helpers/api';
import { origin } from '../forward/support';
import { registersForEachTest, runJobs } from '../actions/run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const register = registersForEachTest(() => project);
const tp = (ticketId: string, headers: Record<string, string> = {}) =>
  call('POST', `/tp/${project.service_id}/${ticketId}`, { body: { n: 1 }, headers: { 'user-agent': 'metrics', ...headers } });
const dryRun = (ticketId: string) =>
  call('POST', `/publ/check/${project.service_id}/${project.owner_id}/${ticketId}`, { body: {}, headers: { 'user-agent': 'metrics' } });
const metrics = (path: string, query = '') => call('GET', `/v1/projects/${project.service_id}${path}/metrics${query}`, { token: project.owner_key });

/** Runs the object's metric jobs: held counts to storage, pending ones to D1. */
async function push(ticketId: string): Promise<void> {
  await runJobs(project, ticketId, 'flush-metrics');
  await runJobs(project, ticketId, 'report-metrics');
}

describe('ticket metrics', () => {
  it('counts successes, failures by code, dry runs and duplicates of a ticket, and its req latency', async () => {
    await register('m-mixed', { idempotency: { key: '${headers[webhook-id]}' }, actions: [{ act: 'req', exe: { url: `${origin}/echo/metrics-ok` } }] });
    await register('m-fail', { actions: [{ act: 'req', exe: { url: `${origin}/fail/metrics-fail/100/500` } }] });
    for (let i = 0; i < 3; i++) expect((await tp('m-mixed', { 'webhook-id': `w${i}` })).status).toBe(200);
    expect((await tp('m-mixed', { 'webhook-id': 'w0' })).status).toBe(200);
    expect((await dryRun('m-mixed')).status).toBe(200);
    for (let i = 0; i < 2; i++) await tp('m-fail');
    await push('m-mixed');
    await push('m-fail');

    const mixed = await metrics('/tickets/m-mixed');
    expect(mixed.status).toBe(200);
    const totals = mixed.json.totals;
    expect(totals).toMatchObject({ consumptions: 3, succeeded: 3, failed: 0, dry_runs: 1, duplicates: 1, failures_by_code: {} });
    expect(totals.latency_ms).not.toBeNull();
    expect(totals.req_latency_ms).not.toBeNull();
    expect(totals.req_latency_ms.p50).toBeLessThanOrEqual(totals.req_latency_ms.p99);

    const failing = (await metrics('/tickets/m-fail')).json.totals;
    expect(failing).toMatchObject({ consumptions: 2, succeeded: 0, failed: 2, failures_by_code: { REQUEST_FAILED: 2 } });

    const streak = await env.DB.prepare('SELECT streak FROM failure_streaks WHERE service_id = ? AND ticket_id = ?')
      .bind(project.service_id, 'm-fail')
      .first<{ streak: number }>();
    expect(streak?.streak).toBe(2);

    // The project's point is the merge of its tickets' (the other tests' tickets of this project included).
    const whole = (await metrics('')).json.totals;
    expect(whole.consumptions).toBeGreaterThanOrEqual(5);
    expect(whole.failures_by_code.REQUEST_FAILED).toBeGreaterThanOrEqual(2);
  });

  it('answers one point per bucket, the empty ones as zeros', async () => {
    await register('m-buckets', { actions: [] });
    await tp('m-buckets');
    await push('m-buckets');
    const now = Date.now();
    const answer = (await metrics('/tickets/m-buckets', `?from=${now - 3_600_000}&to=${now}&bucket=5m`)).json;
    expect(answer.bucket_ms).toBe(300_000);
    expect(answer.points.length).toBeGreaterThanOrEqual(12);
    expect(answer.points.length).toBeLessThanOrEqual(13);
    expect(answer.points.reduce((sum: number, p: { consumptions: number }) => sum + p.consumptions, 0)).toBe(1);
    expect(answer.points.at(-1).consumptions).toBe(1);
    expect(answer.points[0]).toMatchObject({ consumptions: 0, latency_ms: null, req_latency_ms: null });
  });

  it('a ticket with no consumption answers zeros over the range, not an error', async () => {
    const answer = await metrics('/tickets/never-consumed', '?bucket=1h');
    expect(answer.status).toBe(200);
    expect(answer.json.points).toHaveLength(25);
    expect(answer.json.totals).toMatchObject({ consumptions: 0, failed: 0, latency_ms: null });
  });

  it('counts nothing twice: a second push of the same minute adds only what came after the first', async () => {
    await register('m-twice', { actions: [] });
    await tp('m-twice');
    await push('m-twice');
    await tp('m-twice');
    await tp('m-twice');
    await push('m-twice');
    expect((await metrics('/tickets/m-twice')).json.totals.consumptions).toBe(3);
    expect(await ticketStub(env, project.service_id, 'm-twice').scheduledJobs()).toEqual([]);
  });

  it('counts a run that failed after its answer as a failure, not a success', async () => {
    await register('m-later', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/metrics-later/100/500` } },
      ],
    });
    expect((await tp('m-later')).status).toBe(200);
    await runJobs(project, 'm-later');
    await push('m-later');
    expect((await metrics('/tickets/m-later')).json.totals).toMatchObject({
      consumptions: 1,
      succeeded: 0,
      failed: 1,
      failures_by_code: { REQUEST_FAILED: 1 },
    });
  });

  it('counts the retries a retry_schedule scheduled and the dead letter its run became', async () => {
    await register('m-retried', {
      retry_schedule: { delays: ['1s'], attempts: 2 },
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/metrics-retried-${crypto.randomUUID()}/100/500` } },
      ],
    });
    expect((await tp('m-retried')).status).toBe(200);
    await runJobs(project, 'm-retried');
    await push('m-retried');
    expect((await metrics('/tickets/m-retried')).json.totals).toMatchObject({ consumptions: 1, failed: 1, retries: 1, dead_letters: 1 });
  });

  it('counts the requests flood control refused, in the minute the Worker counted them', async () => {
    await register('m-flood', { actions: [] });
    await tp('m-flood');
    const minute = Math.floor(Date.now() / 60_000);
    await ticketStub(env, project.service_id, 'm-flood').addLimited([[minute, 7]]);
    await push('m-flood');
    const answer = (await metrics('/tickets/m-flood', '?bucket=1m')).json;
    expect(answer.totals.flood_refused).toBe(7);
    expect(answer.points.find((p: { start: number }) => p.start === minute * 60_000).flood_refused).toBe(7);
  });

  it("trims its scopes' points past what is kept: minutes after 2 days, hours and days after the plan's retention (Free: 30 days)", async () => {
    await register('m-trim', { actions: [] });
    const now = Date.now();
    const day = 86_400_000;
    const point = (scope: string, grain: string, start: number) =>
      env.DB.prepare('INSERT INTO metric_points (service_id, scope, grain, start, counts) VALUES (?, ?, ?, ?, ?)').bind(
        project.service_id,
        scope,
        grain,
        start,
        '{"ok":1}',
      );
    const old = [point('ticket:m-trim', 'm', now - 3 * day), point('ticket:m-trim', 'h', now - 40 * day), point('ticket:m-trim', 'd', now - 40 * day)];
    const kept = [point('ticket:m-trim', 'm', now - day), point('ticket:m-trim', 'h', now - 20 * day), point('ticket:m-trim', 'd', now - 20 * day)];
    await env.DB.batch([...old, ...kept, point('ticket:other-ticket', 'm', now - 3 * day)]);
    await tp('m-trim');
    await push('m-trim');
    const rows = await env.DB.prepare('SELECT scope, grain, start FROM metric_points WHERE service_id = ? AND scope IN (?, ?) AND start < ?')
      .bind(project.service_id, 'ticket:m-trim', 'ticket:other-ticket', Math.floor(now / day) * day)
      .all<{ scope: string; grain: string; start: number }>();
    // Before today (the push's own points are today's): what this ticket pushes to is trimmed; another scope's points wait for its own push.
    expect(rows.results.map((row) => `${row.scope} ${row.grain} ${Math.round((now - row.start) / day)}d`).sort()).toEqual(
      ['ticket:m-trim d 20d', 'ticket:m-trim h 20d', 'ticket:m-trim m 1d', 'ticket:other-ticket m 3d'].sort(),
    );
  });
});
