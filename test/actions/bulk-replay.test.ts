/**
 * Extension (issue 36 item 4): bulk replay of a ticket's consumptions by filter. A dry run counts; a
 * replay runs oldest first in paced steps, each an invocation of its own started by the object's alarm
 * (the tests make the step due and fire the alarm instead of waiting), with progress and cancel. An
 * action that already succeeded in a consumption runs again only in a full replay.
 */
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createProject, type TestProject } from '../helpers/api';
import { loopback, origin } from '../forward/support';
import { getTickets } from '../logs/log-helpers';
import { consumePost, loggedConsumptions, registersForEachTest, runJobs, settle, untilIdle } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'standard' });
});

const register = registersForEachTest(() => project);

const received = async (path: string) => ((await loopback(`/received?path=${encodeURIComponent(path)}`)) as { count: number }).count;
const failCalls = async (key: string) => ((await loopback(`/calls/${key}`)) as { calls: number }).calls;
const replays = (ticketId: string) => `/v1/projects/${project.service_id}/tickets/${ticketId}/replays`;
const start = (ticketId: string, body: unknown) => call('POST', replays(ticketId), { token: project.owner_key, body });
const status = async (ticketId: string, id: number) => (await call('GET', `${replays(ticketId)}/${id}`, { token: project.owner_key })).json;

/** `n` consumptions of a ticket whose req fails `failures` times in all (500), then answers 200. */
async function failing(ticketId: string, key: string, n: number, failures: number, before = false) {
  await register(ticketId, {
    actions: [
      ...(before ? [{ act: 'req', exe: { url: `${origin}/echo/${key}-before` } }] : []),
      { act: 'req', exe: { url: `${origin}/fail/${key}/${failures}/500`, data: { order: '${body[order]}' } } },
    ],
  });
  for (let i = 0; i < n; i++) await consumePost(project, ticketId, { order: i });
  await settle(project, ticketId);
}

describe('bulk replay', () => {
  it('a dry run counts what the filter matches: failed by default, by time range, by code, by consume_ids', async () => {
    const key = crypto.randomUUID();
    await failing('br-count', key, 3, 3);
    await register('br-count-ok', { actions: [] });
    const logged = await loggedConsumptions(project, 'br-count');
    expect(logged.every((entry) => entry.failed === 1)).toBe(true);
    const count = async (filter: Record<string, unknown>) => (await start('br-count', { filter, dry_run: true })).json;
    expect(await count({})).toEqual({ dry_run: true, matched: 3, unindexed: 0, limit: 100_000 });
    expect((await count({ outcome: 'ok' })).matched).toBe(0);
    expect((await count({ code: 'REQUEST_FAILED' })).matched).toBe(3);
    expect((await count({ code: 'ACTION_FORBIDDEN' })).matched).toBe(0);
    expect((await count({ consume_ids: [logged[0].consume_id, logged[2].consume_id] })).matched).toBe(2);
    expect((await count({ to: 1 })).matched).toBe(0);
    expect(await failCalls(key)).toBe(3);
  });

  it('runs oldest first in paced steps, each replay linked to its original and its bulk replay', async () => {
    const key = crypto.randomUUID();
    await failing('br-run', key, 3, 3);
    const originals = await loggedConsumptions(project, 'br-run');
    const res = await start('br-run', { filter: {}, per_minute: 600 });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ dry_run: false, replay: { state: 'running', total: 3, full: false, per_minute: 600, progress: { done: 0 } } });
    const { id } = res.json.replay;
    await runJobs(project, 'br-run', 'bulk-replay');
    expect(await status('br-run', id)).toMatchObject({
      state: 'finished',
      finished_at: expect.any(Number),
      progress: { done: 3, succeeded: 3, failed: 0, skipped: 0 },
    });
    const replayed = (await loggedConsumptions(project, 'br-run')).filter((entry) => entry.description.bulk_replay === id);
    expect(replayed).toHaveLength(3);
    expect(replayed.every((entry) => entry.failed === 0)).toBe(true);
    const listed = (await getTickets(project, { ticket_id: '#br-run#' })).json.list as { description: string; replay_of: string | null }[];
    const replayOf = listed.filter((row) => JSON.parse(row.description).bulk_replay === id).map((row) => row.replay_of);
    expect(replayOf.sort()).toEqual(originals.map((o) => o.consume_id).sort());
    // The destination saw the orders oldest first.
    const sent = ((await loopback(`/calls/${key}`)) as { calls: number }).calls;
    expect(sent).toBe(6);
    const list = (await call('GET', replays('br-run'), { token: project.owner_key })).json.list;
    expect(list[0]).toMatchObject({ id, state: 'finished' });
  });

  it('never runs again an action that succeeded unless the replay is full', async () => {
    const key = crypto.randomUUID();
    await failing('br-partial', key, 2, 2, true);
    expect(await received(`/echo/${key}-before`)).toBe(2);
    const partial = (await start('br-partial', { filter: {} })).json.replay;
    await runJobs(project, 'br-partial', 'bulk-replay');
    expect(await status('br-partial', partial.id)).toMatchObject({ progress: { done: 2, succeeded: 0, skipped: 2, skipped_by: { succeeded_actions: 2 } } });
    expect(await received(`/echo/${key}-before`)).toBe(2);
    const full = (await start('br-partial', { filter: {}, full: true })).json.replay;
    await runJobs(project, 'br-partial', 'bulk-replay');
    expect(await status('br-partial', full.id)).toMatchObject({ progress: { done: 2, succeeded: 2 } });
    expect(await received(`/echo/${key}-before`)).toBe(4);
  });

  it("replays the ticket's dead letters from their failed action and takes them off the list", async () => {
    const key = crypto.randomUUID();
    await register('br-dead', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/echo/${key}-before` } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/4/500` } },
      ],
      retry_schedule: { delays: ['1s'], attempts: 2 },
    });
    await consumePost(project, 'br-dead');
    await runJobs(project, 'br-dead');
    await consumePost(project, 'br-dead');
    await runJobs(project, 'br-dead');
    const dead = () => call('GET', `/v1/projects/${project.service_id}/tickets/br-dead/dead-letters`, { token: project.owner_key });
    expect((await dead()).json.list).toHaveLength(2);
    expect((await start('br-dead', { filter: { dead_letters: true }, dry_run: true })).json.matched).toBe(2);
    const replay = (await start('br-dead', { filter: { dead_letters: true } })).json.replay;
    await runJobs(project, 'br-dead', 'bulk-replay');
    expect(await status('br-dead', replay.id)).toMatchObject({ state: 'finished', progress: { done: 2, succeeded: 2 } });
    expect(await received(`/echo/${key}-before`)).toBe(2);
    expect((await dead()).json.list).toEqual([]);
  });

  it('is cancelled between two steps; a replay that ended cannot be cancelled', async () => {
    const key = crypto.randomUUID();
    await failing('br-cancel', key, 3, 0);
    // Entries that succeeded are taken (and skipped) too with outcome any: one entry per step at 1 a minute.
    const replay = (await start('br-cancel', { filter: { outcome: 'any' }, per_minute: 1 })).json.replay;
    // The first step is due at once (its alarm starts it); the next waits a minute.
    await vi.waitFor(async () => expect((await status('br-cancel', replay.id)).progress.next_at).toBeGreaterThan(Date.now() + 30_000), { timeout: 5_000 });
    expect(await untilIdle(project, 'br-cancel', 'bulk-replay')).toBe(true);
    const first = await status('br-cancel', replay.id);
    expect(first).toMatchObject({ state: 'running', progress: { done: 1 } });
    expect(first.progress.next_at).toBeGreaterThan(Date.now() + 30_000);
    const cancelled = await call('POST', `${replays('br-cancel')}/${replay.id}/cancel`, { token: project.owner_key });
    expect(cancelled.json).toMatchObject({ state: 'cancelled', progress: { done: 1 } });
    expect(await runJobs(project, 'br-cancel', 'bulk-replay')).toBeLessThanOrEqual(1);
    expect((await status('br-cancel', replay.id)).progress.done).toBe(1);
    const again = await call('POST', `${replays('br-cancel')}/${replay.id}/cancel`, { token: project.owner_key });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'INVALID_REQUEST', message: `Bulk replay ${replay.id} is already cancelled: there is nothing to cancel.` });
  });

  it('a restart of the object between steps loses nothing and runs no entry twice', async () => {
    const key = crypto.randomUUID();
    await failing('br-restart', key, 3, 3);
    const replay = (await start('br-restart', { filter: {}, per_minute: 1 })).json.replay;
    await vi.waitFor(async () => expect((await status('br-restart', replay.id)).progress.done).toBe(1), { timeout: 5_000 });
    expect(await untilIdle(project, 'br-restart', 'bulk-replay')).toBe(true);
    await abortAllDurableObjects();
    await runJobs(project, 'br-restart', 'bulk-replay');
    expect(await status('br-restart', replay.id)).toMatchObject({ state: 'finished', progress: { done: 3, succeeded: 3 } });
    expect(await failCalls(key)).toBe(6);
  });

  it('one replay runs at a time per ticket', async () => {
    await failing('br-one', crypto.randomUUID(), 2, 10);
    const first = await start('br-one', { filter: {}, per_minute: 1 });
    expect(first.status).toBe(200);
    const second = await start('br-one', { filter: {} });
    expect(second.status).toBe(409);
    await call('POST', `${replays('br-one')}/${first.json.replay.id}/cancel`, { token: project.owner_key });
  });

  it('refuses a filter that matches more than 100,000 entries, naming the field; its dry run says how many', async () => {
    await register('br-huge', { actions: [] });
    await consumePost(project, 'br-huge');
    await settle(project, 'br-huge');
    // 100,001 failed entries in the log's index, written directly: the count reads the index only.
    await runInDurableObject(ticketStub(env, project.service_id, 'br-huge'), (_instance, state) => {
      state.storage.sql.exec(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100001)
         INSERT INTO log (log_key, timestamp, class, seg, code) SELECT 'huge' || i, 1000 + i, 1, NULL, 'REQUEST_FAILED' FROM n`,
      );
    });
    expect((await start('br-huge', { filter: {}, dry_run: true })).json).toMatchObject({ matched: 100_001 });
    const refused = await start('br-huge', { filter: {} });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'filter', matched: 100_001 } });
    expect((await call('GET', replays('br-huge'), { token: project.owner_key })).json.list).toEqual([]);
  });

  it('refuses bad input naming the field', async () => {
    await register('br-bad', { actions: [] });
    const cases: [unknown, string][] = [
      [{}, 'filter'],
      [{ filter: {}, per_minute: 0 }, 'per_minute'],
      [{ filter: {}, per_minute: 601 }, 'per_minute'],
      [{ filter: {}, per_minute: 1.5 }, 'per_minute'],
      [{ filter: { outcome: 'check' } }, 'filter.outcome'],
      [{ filter: { code: 'lower' } }, 'filter.code'],
      [{ filter: { from: 20, to: 10 } }, 'filter.to'],
      [{ filter: { from: -1 } }, 'filter.from'],
      [{ filter: { consume_ids: [] } }, 'filter.consume_ids'],
      [{ filter: { consume_ids: Array.from({ length: 1001 }, (_, i) => `abcde${i}`) } }, 'filter.consume_ids'],
      [{ filter: { consume_ids: ['../etc'] } }, 'filter.consume_ids'],
      [{ filter: { dead_letters: true, outcome: 'ok' } }, 'filter.outcome'],
      [{ filter: { bogus: 1 } }, 'filter.bogus'],
      [{ filter: {}, dry_run: 'yes' }, 'dry_run'],
    ];
    for (const [body, field] of cases) {
      const res = await start('br-bad', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json.code).toBe('INVALID_PARAMETER');
      expect(String(res.json.detail?.field), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    expect((await call('GET', `${replays('br-bad')}/xyz`, { token: project.owner_key })).json).toMatchObject({
      code: 'INVALID_PARAMETER',
      detail: { field: 'replay_id' },
    });
    expect((await call('GET', `${replays('br-bad')}/999`, { token: project.owner_key })).status).toBe(404);
    expect((await call('POST', `${replays('br-bad')}/999/cancel`, { token: project.owner_key })).status).toBe(404);
    expect((await start('br-missing', { filter: {} })).status).toBe(404);
  });
});
