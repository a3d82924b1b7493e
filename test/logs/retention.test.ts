import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { RETENTION_DAYS, retentionCutoff, sweepRetention } from '../../src/ticket-log/retention';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders, countRows, flushLogs, writeLogRow } from './log-helpers';

const DAY = 86_400_000;

/** Drives the Worker's scheduled handler as the cron trigger would, at `scheduledTime`. */
async function runCron(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '17 3 * * *' }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/**
 * The cron sweeps a share of the projects and hands the rest to queue messages (docs/limits.md,
 * "Invocations"), so with other files' projects in the database the rows go a little later.
 */
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 20_000, interval: 100 });

/** A project on `plan` whose ticket was consumed once (log row via the TicketDO) plus one action row. */
async function projectWithLog(plan: string): Promise<TestProject> {
  const project = await createProject({ plan });
  await registerTicket(project, 'hook', { actions: [] });
  await call('POST', `/tp/${project.service_id}/hook`, { body: {}, headers: anonymousHeaders });
  await flushLogs(project.service_id, 'hook');
  await writeLogRow(project.service_id, 'hook', 'ACTIONrow001', Date.now(), {}, [{ seq: 0, path: 'actions[0]', act: 'req', detail: {} }]);
  return project;
}

let free: TestProject;
let standard: TestProject;
let premium: TestProject;
let start: number;

beforeAll(async () => {
  start = Date.now();
  free = await projectWithLog('free');
  standard = await projectWithLog('standard');
  premium = await projectWithLog('premium');
});

const kept = { logs: 2, actions: 1 };
const gone = { logs: 0, actions: 0 };

describe('ticket log retention by plan (scheduled cleanup)', () => {
  it('retention is free 30 days, standard 90 days, premium never', () => {
    expect(RETENTION_DAYS).toEqual({ free: 30, standard: 90, premium: null });
    expect(retentionCutoff('free', 100 * DAY)).toBe(70 * DAY);
    expect(retentionCutoff('standard', 100 * DAY)).toBe(10 * DAY);
    expect(retentionCutoff('premium', 100 * DAY)).toBeNull();
  });

  it('rows younger than 30 days are kept on every plan', async () => {
    await runCron(start + 29 * DAY);
    for (const project of [free, standard, premium]) expect(await countRows(project.service_id, 'hook')).toEqual(kept);
  });

  it('after 30 days the free project loses its consumption and action rows; standard and premium keep theirs', async () => {
    await runCron(Date.now() + 31 * DAY);
    await eventually(async () => expect(await countRows(free.service_id, 'hook')).toEqual(gone));
    expect(await countRows(standard.service_id, 'hook')).toEqual(kept);
    expect(await countRows(premium.service_id, 'hook')).toEqual(kept);
  });

  it('after 90 days the standard project loses its rows; premium keeps them for good', async () => {
    await runCron(Date.now() + 89 * DAY);
    expect(await countRows(standard.service_id, 'hook')).toEqual(kept);
    await runCron(Date.now() + 91 * DAY);
    await eventually(async () => expect(await countRows(standard.service_id, 'hook')).toEqual(gone));
    await runCron(Date.now() + 3650 * DAY);
    expect(await countRows(premium.service_id, 'hook')).toEqual(kept);
  });

  it('the ticket itself survives retention', async () => {
    const res = await call('GET', `/v1/projects/${free.service_id}/tickets?ticket_id=hook`, { token: free.owner_key });
    expect(res.json.list.map((t: any) => t.ticket_id)).toEqual(['hook']);
  });

  it('a page of more projects than one run can sweep is still swept to its end: each run resumes past the projects it finished', async () => {
    const page = await Promise.all(Array.from({ length: 8 }, () => createProject({ plan: 'free' })));
    const later = Date.now() + 31 * DAY;
    const count = async (sql: string) => (await env.DB.prepare(sql).first<{ n: number }>())!.n;
    // Every run sweeps at least one project or one ticket, so this many runs always reach the end.
    const enough = (await count('SELECT count(*) AS n FROM projects')) + (await count('SELECT count(*) AS n FROM log_tickets')) + 10;
    let cursor: string | null = '';
    let runs = 0;
    // 7 statements a run: the page read, then two projects (3 statements each) of a page of 50.
    while (cursor !== null && runs < enough) {
      cursor = await sweepRetention(env, later, cursor, 7, async () => {});
      runs++;
    }
    expect(cursor).toBeNull();
    expect(runs).toBeGreaterThan(page.length / 2);
  });

  it('a sweep out of budget returns where to resume, and resuming finishes the work', async () => {
    const project = await projectWithLog('free');
    const later = Date.now() + 31 * DAY;
    // One round trip only reads the first page of projects: this one's rows are not deleted yet, and the
    // sweep answers where to resume (the start, or past other files' projects).
    const resumeAt = await sweepRetention(env, later, '', 1);
    expect(resumeAt).toEqual(expect.any(String));
    expect(await countRows(project.service_id, 'hook')).toEqual(kept);
    let cursor: string | null = resumeAt;
    while (cursor !== null) cursor = await sweepRetention(env, later, cursor);
    expect(await countRows(project.service_id, 'hook')).toEqual(gone);
  });
});
