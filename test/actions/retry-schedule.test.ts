/**
 * Extension (issue 36 item 1): a ticket's retry_schedule tries the run after resp again from the failed
 * action, each attempt a run of the continuation's job started by the object's alarm. Time is not waited
 * for: each next attempt is made due now in the object's storage and the alarm is fired. The destination
 * is the loopback server's /fail route (a status the first n times, then 200) and /echo, whose calls
 * /received counts.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { getTickets } from '../logs/log-helpers';
import { loopback, origin } from '../forward/support';
import { consumePost, dueNow, jobsOf, loggedConsumptions, registersForEachTest, remainingOf, runJobs, untilIdle as idle } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'standard' });
});

const register = registersForEachTest(() => project);

const received = async (path: string) => ((await loopback(`/received?path=${encodeURIComponent(path)}`)) as { count: number }).count;
const failCalls = async (key: string) => ((await loopback(`/calls/${key}`)) as { calls: number }).calls;
const continuationJobs = (ticketId: string) => jobsOf(project, ticketId, 'continuation');
const untilIdle = (ticketId: string) => idle(project, ticketId);
const attemptNow = (ticketId: string) => dueNow(project, ticketId);
const runSchedule = (ticketId: string) => runJobs(project, ticketId);

const afterAnswer = (steps: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  actions: [{ act: 'resp', exe: { body: 'accepted', resume: '0m' } }, ...steps],
  ...extra,
});

describe('a ticket with retry_schedule', () => {
  it('a req answered 503 twice and then 200 ends ok with 3 attempts logged; the actions before it ran once', async () => {
    const key = crypto.randomUUID();
    await register('sched-503', {
      ...afterAnswer([
        { act: 'req', exe: { url: `${origin}/echo/${key}-before` } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/2/503` } },
        { act: 'req', exe: { url: `${origin}/echo/${key}-after` } },
      ]),
      retry_schedule: true,
    });
    expect((await consumePost(project, 'sched-503')).json).toBe('accepted');
    expect(await runSchedule('sched-503')).toBe(2);
    expect(await received(`/echo/${key}-before`)).toBe(1);
    expect(await failCalls(key)).toBe(3);
    expect(await received(`/echo/${key}-after`)).toBe(1);
    const [logged] = await loggedConsumptions(project, 'sched-503');
    expect(logged).toMatchObject({ failed: 0, code: null });
    expect(logged.actions.map((a) => a.path)).toEqual(['actions[0]', 'actions[1]', 'actions[2]', 'actions[3]']);
    const { attempts, attempts_total, finished, next_attempt_at } = logged.description.continuation;
    expect(attempts_total).toBe(3);
    expect(attempts).toEqual([
      { at: expect.any(Number), ok: false, path: 'actions[2]', code: 'REQUEST_FAILED', status: 503, waited_ms: expect.any(Number), wait_from: 'backoff' },
      { at: expect.any(Number), ok: false, path: 'actions[2]', code: 'REQUEST_FAILED', status: 503, waited_ms: expect.any(Number), wait_from: 'backoff' },
      { at: expect.any(Number), ok: true },
    ]);
    expect(finished).toEqual(expect.any(Number));
    expect(next_attempt_at).toBeUndefined();
  });

  it("shows the next attempt's time in the owner's log answer while it waits, and not once it is done", async () => {
    const key = crypto.randomUUID();
    await register('sched-visible', { ...afterAnswer([{ act: 'req', exe: { url: `${origin}/fail/${key}/1/500` } }]), retry_schedule: true });
    await consumePost(project, 'sched-visible');
    expect(await untilIdle('sched-visible')).toBe(true);
    const [job] = await continuationJobs('sched-visible');
    const [waiting] = (await getTickets(project, { ticket_id: '#sched-visible#' })).json.list;
    expect(waiting.next_attempt_at).toBe(job.run_at);
    expect(waiting.failed).toBeUndefined();
    expect(JSON.parse(waiting.description).continuation.attempts).toEqual([
      { at: expect.any(Number), ok: false, path: 'actions[1]', code: 'REQUEST_FAILED', status: 500 },
    ]);
    await runSchedule('sched-visible');
    const [done] = (await getTickets(project, { ticket_id: '#sched-visible#' })).json.list;
    expect(done.next_attempt_at).toBeUndefined();
    expect(JSON.parse(done.description).continuation.attempts_total).toBe(2);
  });

  it('a 400 is not retried: the run fails at once and the count is given back', async () => {
    const key = crypto.randomUUID();
    await register('sched-400', { ...afterAnswer([{ act: 'req', exe: { url: `${origin}/fail/${key}/5/400` } }]), retry_schedule: true, count: 3 });
    await consumePost(project, 'sched-400');
    expect(await runSchedule('sched-400')).toBe(0);
    expect(await failCalls(key)).toBe(1);
    const [logged] = await loggedConsumptions(project, 'sched-400');
    expect(logged).toMatchObject({ failed: 1, code: 'REQUEST_FAILED' });
    expect(logged.description.continuation.attempts).toEqual([{ at: expect.any(Number), ok: false, path: 'actions[1]', code: 'REQUEST_FAILED', status: 400 }]);
    expect(await remainingOf(project, 'sched-400')).toBe(3);
  });

  it("the schedule's last attempt fails the run as before: its err chain runs once and the count is given back", async () => {
    const key = crypto.randomUUID();
    await register('sched-last', {
      ...afterAnswer([{ act: 'req', exe: { url: `${origin}/fail/${key}/10/500` }, err: [{ act: 'req', exe: { url: `${origin}/echo/${key}-err` } }] }]),
      retry_schedule: { delays: ['1s'], attempts: 3 },
      count: 3,
    });
    await consumePost(project, 'sched-last');
    expect(await runSchedule('sched-last')).toBe(2);
    expect(await failCalls(key)).toBe(3);
    expect(await received(`/echo/${key}-err`)).toBe(1);
    const [logged] = await loggedConsumptions(project, 'sched-last');
    expect(logged).toMatchObject({ failed: 1, code: 'REQUEST_FAILED' });
    expect(logged.actions.map((a) => a.path)).toEqual(['actions[0]', 'actions[1]', 'actions[1].err[0]']);
    expect(logged.description.continuation.attempts.map((a: { status?: number }) => a.status)).toEqual([500, 500, 500]);
    expect(await remainingOf(project, 'sched-last')).toBe(3);
  });

  it('a 429 with Retry-After waits without using up an attempt, and its record says it waited and why', async () => {
    const key = crypto.randomUUID();
    await register('sched-429', {
      ...afterAnswer([{ act: 'req', exe: { url: `${origin}/fail/${key}/3/429?retry_after=7` } }]),
      retry_schedule: { delays: ['1s'], attempts: 2 },
    });
    await consumePost(project, 'sched-429');
    expect(await untilIdle('sched-429')).toBe(true);
    const [job] = await continuationJobs('sched-429');
    const [waiting] = await loggedConsumptions(project, 'sched-429');
    expect(job.run_at).toBe(waiting.description.continuation.next_attempt_at);
    expect(job.run_at - waiting.description.continuation.attempts[0].at).toBe(7_000);
    expect(await runSchedule('sched-429')).toBe(3);
    expect(await failCalls(key)).toBe(4);
    const [logged] = await loggedConsumptions(project, 'sched-429');
    expect(logged).toMatchObject({ failed: 0 });
    const waited = { at: expect.any(Number), ok: false, path: 'actions[1]', code: 'REQUEST_FAILED', status: 429, waited_ms: 7_000, wait_from: 'retry-after' };
    expect(logged.description.continuation.attempts).toEqual([waited, waited, waited, { at: expect.any(Number), ok: true }]);
  });

  it('a restart of the object mid-schedule loses no attempt: the run goes on from the failed action and ends ok', async () => {
    const key = crypto.randomUUID();
    await register('sched-restart', {
      ...afterAnswer([
        { act: 'req', exe: { url: `${origin}/echo/${key}-before` } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/2/502` } },
      ]),
      retry_schedule: true,
    });
    await consumePost(project, 'sched-restart');
    expect(await untilIdle('sched-restart')).toBe(true);
    await abortAllDurableObjects();
    expect(await continuationJobs('sched-restart')).toEqual([expect.objectContaining({ running: false })]);
    await attemptNow('sched-restart');
    expect(await untilIdle('sched-restart')).toBe(true);
    await abortAllDurableObjects();
    expect(await runSchedule('sched-restart')).toBe(1);
    expect(await received(`/echo/${key}-before`)).toBe(1);
    expect(await failCalls(key)).toBe(3);
    const [logged] = await loggedConsumptions(project, 'sched-restart');
    expect(logged).toMatchObject({ failed: 0 });
    expect(logged.description.continuation.attempts_total).toBe(3);
    expect(logged.actions.map((a) => a.path)).toEqual(['actions[0]', 'actions[1]', 'actions[2]']);
  });

  it('a network error is retried by default and not when on.network is false', async () => {
    // Port 1 on the loopback address: nothing listens, the connection is refused.
    const closed = { act: 'req', exe: { url: 'http://127.0.0.1:1/nothing' } };
    await register('sched-network', { ...afterAnswer([closed]), retry_schedule: { delays: ['1s'], attempts: 2 } });
    await register('sched-no-network', { ...afterAnswer([closed]), retry_schedule: { delays: ['1s'], attempts: 2, on: { network: false } } });
    await consumePost(project, 'sched-network');
    await consumePost(project, 'sched-no-network');
    expect(await runSchedule('sched-network')).toBe(1);
    expect(await runSchedule('sched-no-network')).toBe(0);
    const refused = { at: expect.any(Number), ok: false, path: 'actions[1]', code: 'REQUEST_FAILED' };
    const [retried] = await loggedConsumptions(project, 'sched-network');
    expect(retried).toMatchObject({ failed: 1, code: 'REQUEST_FAILED' });
    expect(retried.description.outcome.detail).toMatchObject({ reason: 'unreachable' });
    expect(retried.description.continuation.attempts).toEqual([refused, refused]);
    const [once] = await loggedConsumptions(project, 'sched-no-network');
    expect(once.description.continuation.attempts).toEqual([refused]);
  });

  it("no attempt record holds the Secret Key's value, while the run waits or after", async () => {
    const secret = `sk-sched-${crypto.randomUUID()}`;
    await putSecret(project, 'sched-key', secret);
    const key = crypto.randomUUID();
    await register('sched-secret', {
      ...afterAnswer([
        { act: 'req', exe: { url: `${origin}/fail/${key}/1/500`, secretName: 'sched-key', headers: { authorization: 'Bearer ${CLIENT_SECRET}' } } },
      ]),
      retry_schedule: true,
    });
    await consumePost(project, 'sched-secret');
    expect(await untilIdle('sched-secret')).toBe(true);
    const waiting = await ticketStub(env, project.service_id, 'sched-secret').logEntries();
    expect(JSON.stringify(waiting)).not.toContain(secret);
    expect(await runSchedule('sched-secret')).toBe(1);
    const [logged] = await loggedConsumptions(project, 'sched-secret');
    expect(logged.description.continuation.attempts_total).toBe(2);
    expect(JSON.stringify(await ticketStub(env, project.service_id, 'sched-secret').logEntries())).not.toContain(secret);
    const jobsAnswer = await call('GET', `/v1/projects/${project.service_id}/tickets/sched-secret/jobs`, { token: project.owner_key });
    expect(jobsAnswer.text).not.toContain(secret);
  });

  it('without the field, a 503 after the answer fails the run at once, as before', async () => {
    const key = crypto.randomUUID();
    await register('sched-none', { ...afterAnswer([{ act: 'req', exe: { url: `${origin}/fail/${key}/1/503` } }]) });
    await consumePost(project, 'sched-none');
    expect(await runSchedule('sched-none')).toBe(0);
    expect(await failCalls(key)).toBe(1);
    const [logged] = await loggedConsumptions(project, 'sched-none');
    expect(logged).toMatchObject({ failed: 1, code: 'REQUEST_FAILED' });
    expect(logged.description.continuation).not.toHaveProperty('attempts');
  });
});
