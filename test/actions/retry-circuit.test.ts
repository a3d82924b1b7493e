/**
 * Extension (issue 36 item 6, tickets): a failing destination is not hammered by a ticket's runs with a
 * retry_schedule. Every req send of such a run tells its origin's circuit, kept in the ticket's object;
 * five failures in a row open it, and an attempt whose req goes there is then held (not sent, no attempt
 * used) until the probe's time; the probe's success closes it. Time is not waited for: an attempt is made
 * due in the object's storage (the probe too, by moving its circuit's probe_at) and the alarm is fired.
 * The destination is the loopback server's /fail route, whose calls /calls counts; every loopback route
 * shares one origin, and each ticket has an object (and so circuits) of its own.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { THRESHOLD } from '../../src/outbound/circuit';
import { ticketStub } from '../../src/platform/object-stubs';
import { call, createProject, type TestProject } from '../helpers/api';
import { loopback, origin } from '../forward/support';
import { consumePost, dueNow, jobsOf, loggedConsumptions, registersForEachTest, remainingOf, settle, untilIdle as idle } from './run-support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'standard' });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const register = registersForEachTest(() => project);

const stubOf = (ticketId: string) => ticketStub(env, project.service_id, ticketId);
const failCalls = async (key: string) => ((await loopback(`/calls/${key}`)) as { calls: number }).calls;
const continuationJobs = (ticketId: string) => jobsOf(project, ticketId, 'continuation');

interface CircuitRow extends Record<string, SqlStorageValue> {
  origin: string;
  state: string;
  failures: number;
  probe_at: number;
  probes_failed: number;
}

const circuitsOf = (ticketId: string): Promise<CircuitRow[]> =>
  runInDurableObject(stubOf(ticketId), (_instance, state) =>
    state.storage.sql.exec<CircuitRow>('SELECT origin, state, failures, probe_at, probes_failed FROM destination_circuits').toArray(),
  );

const untilIdle = (ticketId: string) => idle(project, ticketId);

/** Makes the waiting attempts due now and fires the alarm (with `probe`, the circuits' probe is due too); waits until they ran. */
async function attemptNow(ticketId: string, probe = false): Promise<boolean> {
  if (probe) {
    await runInDurableObject(stubOf(ticketId), (_instance, state) => {
      state.storage.sql.exec("UPDATE destination_circuits SET probe_at = ? WHERE state = 'open'", Date.now());
    });
  }
  await dueNow(project, ticketId);
  return untilIdle(ticketId);
}

/** Fires the object's alarm until its report of paused destinations to D1 is written (at most 2 s). */
async function reported(ticketId: string): Promise<void> {
  const stub = stubOf(ticketId);
  for (const until = Date.now() + 2_000; Date.now() < until; ) {
    if (!(await stub.scheduledJobs()).some((job) => job.kind === 'report-circuits')) return;
    if (!(await runDurableObjectAlarm(stub))) await sleep(10);
  }
  throw new Error('the paused destinations were never reported');
}

/** The ticket's one run: its log entry's continuation member. */
const continuationOf = async (ticketId: string) => (await loggedConsumptions(project, ticketId))[0].description.continuation;

/** Moves the open circuits' probe a minute away, so a slow machine never reaches it before the test does. */
const probeLater = (ticketId: string) =>
  runInDurableObject(stubOf(ticketId), (_instance, state) => {
    state.storage.sql.exec("UPDATE destination_circuits SET probe_at = ? WHERE state = 'open'", Date.now() + 60_000);
  });

/** Consumes the ticket and makes its run's attempts due until THRESHOLD of them failed: its origin's circuit is open. */
async function openByAttempts(ticketId: string): Promise<void> {
  await consumePost(project, ticketId);
  expect(await untilIdle(ticketId)).toBe(true);
  for (let attempt = 2; attempt <= THRESHOLD; attempt++) expect(await attemptNow(ticketId)).toBe(true);
  expect(await circuitsOf(ticketId)).toEqual([expect.objectContaining({ origin, state: 'open', failures: THRESHOLD })]);
  await probeLater(ticketId);
}

const afterAnswer = (url: string, extra: Record<string, unknown> = {}) => ({
  actions: [
    { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
    { act: 'req', exe: { url } },
  ],
  ...extra,
});

const hold = { at: expect.any(Number), ok: false, path: 'actions[1]', waited: 'circuit', waited_ms: expect.any(Number) };

describe("a destination's circuit, for a ticket's runs with retry_schedule", () => {
  it("opens after five failed attempts: the next attempt is held, not sent, using no attempt; the probe's success closes it and the run ends ok", async () => {
    const key = crypto.randomUUID();
    await register('circ-open', { ...afterAnswer(`${origin}/fail/${key}/${THRESHOLD}/503`), retry_schedule: true });
    await openByAttempts('circ-open');
    expect(await failCalls(key)).toBe(THRESHOLD);

    expect(await attemptNow('circ-open')).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD);
    const [circuit] = await circuitsOf('circ-open');
    const [job] = await continuationJobs('circ-open');
    expect(job.run_at).toBe(circuit.probe_at);
    const held = await continuationOf('circ-open');
    expect(held.next_attempt_at).toBe(job.run_at);
    expect(held.attempts_total).toBe(THRESHOLD);
    expect(held.attempts.at(-1)).toEqual(hold);
    expect(held.attempts.at(-1).at + held.attempts.at(-1).waited_ms).toBe(job.run_at);

    // Made due again before the probe's time: still held, the one hold lengthened, not listed twice.
    expect(await attemptNow('circ-open')).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD);
    expect((await continuationOf('circ-open')).attempts.filter((a: { waited?: string }) => a.waited === 'circuit')).toHaveLength(1);

    expect(await attemptNow('circ-open', true)).toBe(false);
    await settle(project, 'circ-open');
    expect(await failCalls(key)).toBe(THRESHOLD + 1);
    expect(await circuitsOf('circ-open')).toEqual([]);
    const [logged] = await loggedConsumptions(project, 'circ-open');
    expect(logged).toMatchObject({ failed: 0, code: null });
    expect(logged.description.continuation.attempts_total).toBe(THRESHOLD + 1);
    expect(logged.description.continuation.attempts.slice(-2)).toEqual([hold, { at: expect.any(Number), ok: true }]);
  });

  it("holds a new run's first attempt too: a consumption after the circuit opened sends nothing, uses no attempt and waits for the probe", async () => {
    const key = crypto.randomUUID();
    await register('circ-first', { ...afterAnswer(`${origin}/fail/${key}/100/503`), retry_schedule: true });
    await openByAttempts('circ-first');
    expect(await failCalls(key)).toBe(THRESHOLD);
    await consumePost(project, 'circ-first');
    expect(await untilIdle('circ-first')).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD);
    const [circuit] = await circuitsOf('circ-first');
    const [, second] = await loggedConsumptions(project, 'circ-first');
    expect(second.description.continuation.next_attempt_at).toBe(circuit.probe_at);
    expect(second.description.continuation.attempts).toEqual([hold]);
    expect(second.description.continuation.attempts_total ?? 0).toBe(0);
  });

  it('stays open when the probe fails: the probe counts as an attempt, and the next attempt is held again for a later probe', async () => {
    const key = crypto.randomUUID();
    await register('circ-probe-fails', { ...afterAnswer(`${origin}/fail/${key}/100/500`), retry_schedule: { delays: ['1s'], attempts: 20 } });
    await openByAttempts('circ-probe-fails');

    const probed = Date.now();
    expect(await attemptNow('circ-probe-fails', true)).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD + 1);
    const [reopened] = await circuitsOf('circ-probe-fails');
    expect(reopened).toMatchObject({ state: 'open', probes_failed: 1 });
    // After a failed probe the wait is at least two probe steps (CIRCUIT_PROBE_MS is 300 in the test settings); the first is one to two.
    expect(reopened.probe_at - probed).toBeGreaterThanOrEqual(2 * Number(env.CIRCUIT_PROBE_MS));

    await probeLater('circ-probe-fails');
    const [later] = await circuitsOf('circ-probe-fails');
    expect(await attemptNow('circ-probe-fails')).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD + 1);
    const [job] = await continuationJobs('circ-probe-fails');
    expect(job.run_at).toBe(later.probe_at);
    const held = await continuationOf('circ-probe-fails');
    expect(held.attempts_total).toBe(THRESHOLD + 1);
    expect(held.attempts.at(-1)).toEqual(hold);
  });

  it('opens after five runs each failing 503 once: the next attempt of every one of them is held, none sent', async () => {
    const key = crypto.randomUUID();
    await register('circ-five', { ...afterAnswer(`${origin}/fail/${key}/100/503`), retry_schedule: true });
    for (let run = 0; run < THRESHOLD; run++) {
      await consumePost(project, 'circ-five');
      expect(await untilIdle('circ-five')).toBe(true);
    }
    expect(await circuitsOf('circ-five')).toEqual([expect.objectContaining({ origin, state: 'open', failures: THRESHOLD })]);
    await probeLater('circ-five');
    expect(await attemptNow('circ-five')).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD);
    const [circuit] = await circuitsOf('circ-five');
    expect((await continuationJobs('circ-five')).map((job) => job.run_at)).toEqual(Array(THRESHOLD).fill(circuit.probe_at));
    const logged = await loggedConsumptions(project, 'circ-five');
    expect(logged).toHaveLength(THRESHOLD);
    for (const { description } of logged) {
      expect(description.continuation).toMatchObject({ attempts_total: 1, next_attempt_at: circuit.probe_at });
      expect(description.continuation.attempts.at(-1)).toEqual(hold);
    }
  });

  it("ends as the schedule's last attempt when its window ends while held: nothing sent, the err chain runs once, the count is given back", async () => {
    const key = crypto.randomUUID();
    await register('circ-window', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/100/500` }, err: [{ act: 'req', exe: { url: `${origin}/echo/${key}-err` } }] },
      ],
      retry_schedule: { delays: ['1s'], attempts: 20, within: '1m' },
      count: 3,
    });
    await openByAttempts('circ-window');
    // The probe is due after the window's end (a minute from the first attempt).
    await runInDurableObject(stubOf('circ-window'), (_instance, state) => {
      state.storage.sql.exec("UPDATE destination_circuits SET probe_at = ? WHERE state = 'open'", Date.now() + 120_000);
    });
    expect(await attemptNow('circ-window')).toBe(false);
    await settle(project, 'circ-window');
    expect(await failCalls(key)).toBe(THRESHOLD);
    expect(((await loopback(`/received?path=${encodeURIComponent(`/echo/${key}-err`)}`)) as { count: number }).count).toBe(1);
    const [logged] = await loggedConsumptions(project, 'circ-window');
    expect(logged).toMatchObject({ failed: 1, code: 'REQUEST_FAILED' });
    expect(logged.description.outcome.detail).toEqual({ reason: 'circuit_open', origin });
    expect(logged.actions.map((a) => a.path)).toEqual(['actions[0]', 'actions[1]', 'actions[1].err[0]']);
    expect(await remainingOf(project, 'circ-window')).toBe(3);
    // It is a dead letter, judged by the last answer it got (a 500), with the attempts that were sent.
    const letters = await call('GET', `/v1/projects/${project.service_id}/tickets/circ-window/dead-letters`, { token: project.owner_key });
    expect(letters.json.list).toMatchObject([{ reason: 'error_status', status_code: 500, attempts: THRESHOLD + 1, ticket: { path: 'actions[1]' } }]);
  });

  it('loses nothing when the object restarts mid-hold: the run is still held, then sent at the probe and ends ok', async () => {
    const key = crypto.randomUUID();
    await register('circ-restart', { ...afterAnswer(`${origin}/fail/${key}/${THRESHOLD}/502`), retry_schedule: { delays: ['1s'], attempts: 20 } });
    await openByAttempts('circ-restart');
    expect(await attemptNow('circ-restart')).toBe(true);
    const [before] = await continuationJobs('circ-restart');

    await abortAllDurableObjects();

    expect(await continuationJobs('circ-restart')).toEqual([expect.objectContaining({ running: false, run_at: before.run_at })]);
    expect(await circuitsOf('circ-restart')).toEqual([expect.objectContaining({ state: 'open' })]);
    expect(await attemptNow('circ-restart')).toBe(true);
    expect(await failCalls(key)).toBe(THRESHOLD);
    expect(await attemptNow('circ-restart', true)).toBe(false);
    await settle(project, 'circ-restart');
    expect(await failCalls(key)).toBe(THRESHOLD + 1);
    expect(await loggedConsumptions(project, 'circ-restart')).toEqual([expect.objectContaining({ failed: 0 })]);
  });

  it('lists the paused origin with its ticket in the owner route, only in its own project, until the ticket is deleted', async () => {
    const key = crypto.randomUUID();
    await register('circ-listed', { ...afterAnswer(`${origin}/fail/${key}/100/500`), retry_schedule: { delays: ['1m'], attempts: 20 } });
    await openByAttempts('circ-listed');
    await reported('circ-listed');
    const listed = await call('GET', `/v1/projects/${project.service_id}/destinations`, { token: project.owner_key });
    expect(listed.status).toBe(200);
    const item = listed.json.list.find((one: { ticket?: string }) => one.ticket === 'circ-listed');
    expect(item).toEqual({ origin, ticket: 'circ-listed', state: 'open', since: expect.any(Number), failures: THRESHOLD, next_probe_at: expect.any(Number) });
    expect(item).not.toHaveProperty('caller');

    const other = await createProject();
    expect((await call('GET', `/v1/projects/${other.service_id}/destinations`, { token: other.owner_key })).json).toEqual({ list: [] });

    await call('DELETE', `/v1/projects/${project.service_id}/tickets/circ-listed`, { token: project.owner_key });
    const after = await call('GET', `/v1/projects/${project.service_id}/destinations`, { token: project.owner_key });
    expect(after.json.list.filter((one: { ticket?: string }) => one.ticket === 'circ-listed')).toEqual([]);
    expect(await circuitsOf('circ-listed')).toEqual([]);
  });
});

describe('a ticket without retry_schedule', () => {
  it('keeps no circuit: after five runs failing 503, the sixth run sends at once', async () => {
    const key = crypto.randomUUID();
    await register('circ-none', afterAnswer(`${origin}/fail/${key}/100/503`));
    for (let run = 0; run <= THRESHOLD; run++) {
      await consumePost(project, 'circ-none');
      await settle(project, 'circ-none');
    }
    expect(await failCalls(key)).toBe(THRESHOLD + 1);
    expect(await circuitsOf('circ-none')).toEqual([]);
    const logged = await loggedConsumptions(project, 'circ-none');
    expect(logged).toHaveLength(THRESHOLD + 1);
    for (const one of logged) expect(one).toMatchObject({ failed: 1, code: 'REQUEST_FAILED' });
  });
});
