/**
 * Extension (issue 36 item 6): a failing destination is not hammered. Five failures in a row open the
 * destination's circuit in the caller's object; a queued request sent with `retry` then waits, held at the
 * head of its queue, until a probe (CIRCUIT_PROBE_MS shortens its 1-minute step in the test settings)
 * succeeds; requests without `retry` are sent as the spec says. The destination is the loopback server's
 * /failing route (500 the first n times); every loopback route shares one origin, so each test has a project
 * (and so a caller object and its circuits) of its own, and cancels what it leaves waiting.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { THRESHOLD } from '../../src/outbound/circuit';
import { call, createProject, type TestProject } from '../helpers/api';
import { cancel, eventually, forward, heldAtGate, loopback, origin, poll, received, settledEnvelope, uniquePath } from './support';

const GET = 'GET' as const;

/** A /failing url of the test's own: 500 the first `failing` times, then 200 { calls }. */
const failing = (count: number) => {
  const key = crypto.randomUUID();
  return { key, url: `${origin}/fail/${key}/${count}/500` };
};

const calls = async (key: string): Promise<number> => ((await loopback(`/calls/${key}`)) as { calls: number }).calls;

/** Queues THRESHOLD requests sent with retry that fail (500) and waits until they settled: the circuit is open. */
async function openCircuit(project: TestProject, url: string, queue: string): Promise<void> {
  const sent = [];
  for (let i = 0; i < THRESHOLD; i++) sent.push(await forward(project, { url, method: GET, queue, retry: true }));
  for (const one of sent) expect(await settledEnvelope(project, { id: one.json.id, url, method: GET })).toMatchObject({ status_code: 500 });
}

/** Polls (at most two seconds) until the request is held for its destination's circuit; answers that status object. */
async function heldState(project: TestProject, id: string, url: string): Promise<Record<string, any>> {
  for (const until = Date.now() + 2000; Date.now() < until; ) {
    const state = (await poll(project, { id, url, method: GET })).json;
    if (state.status === 'pending' && state.attempts?.at(-1)?.waited === 'circuit') return state;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the request was never held for its circuit');
}

const destinations = (project: TestProject, token = project.owner_key) => call('GET', `/v1/projects/${project.service_id}/destinations`, { token });

describe("a destination's circuit, for queued requests sent with retry", () => {
  it('opens after five failures in a row: the next request is held, not sent, then sent as the probe, whose success lets the queue drain in order', async () => {
    const project = await createProject();
    const { key, url } = failing(THRESHOLD);
    const path = uniquePath('/echo/circuit-behind');
    const queue = 'circuit-drain';
    const failed = [];
    for (let i = 0; i < THRESHOLD; i++) failed.push(await forward(project, { url, method: GET, queue, retry: true }));
    const probe = await forward(project, { url, method: GET, queue, retry: true });
    const behind = await forward(project, { url: `${origin}${path}`, method: GET, queue, retry: true });

    const held = await heldState(project, probe.json.id, url);
    expect(held).toMatchObject({ in_queue: 1, attempts: [{ waited: 'circuit' }] });
    expect(held.attempts[0]).not.toHaveProperty('status_code');
    expect(held.next_attempt_at).toBe(held.attempts[0].at + held.attempts[0].waited_ms);

    const probed = await settledEnvelope(project, { id: probe.json.id, url, method: GET });
    expect(probed).toMatchObject({ status: 'resolved', status_code: 200, response_body: { calls: THRESHOLD + 1 } });
    // Sent once, at the probe's time: never while it was held.
    expect(probed.executed).toBeGreaterThanOrEqual(probed.attempts[0].at + probed.attempts[0].waited_ms);
    expect(await calls(key)).toBe(THRESHOLD + 1);
    const drained = await settledEnvelope(project, { id: behind.json.id, url: `${origin}${path}`, method: GET });
    expect(drained).toMatchObject({ status: 'resolved', status_code: 200 });
    expect(drained).not.toHaveProperty('attempts');
    expect(drained.executed).toBeGreaterThanOrEqual(probed.responded);
    expect(await received(path)).toBe(1);
    for (const one of failed) expect(await settledEnvelope(project, { id: one.json.id, url, method: GET })).toMatchObject({ status_code: 500 });
  });

  it('stays open when the probe fails: the probe settles with its failure and the next request is held again', async () => {
    const project = await createProject();
    const { key, url } = failing(1000);
    await openCircuit(project, url, 'circuit-probe-fails');
    const probe = await forward(project, { url, method: GET, queue: 'circuit-probe-fails', retry: true });
    const next = await forward(project, { url, method: GET, queue: 'circuit-probe-fails', retry: true });

    const probed = await settledEnvelope(project, { id: probe.json.id, url, method: GET });
    expect(probed).toMatchObject({ status: 'resolved', status_code: 500, attempts: [{ waited: 'circuit' }] });
    const held = await heldState(project, next.json.id, url);
    expect(held.next_attempt_at).toBeGreaterThan(probed.responded);
    // Removed while it waited: it was never sent, and the destination saw the five failures and the probe only.
    expect((await cancel(project, { id: next.json.id, url, method: GET })).json).toMatchObject({
      removed: true,
      message: 'The request was removed from its queue.',
    });
    expect(await calls(key)).toBe(THRESHOLD + 1);
  });

  it('leaves requests without retry as the spec says: sent at once while the circuit is open, no wait listed', async () => {
    const project = await createProject();
    const { key, url } = failing(1000);
    await openCircuit(project, url, 'circuit-spec');
    const plain = await forward(project, { url, method: GET, queue: 'circuit-spec-plain' });
    const done = await settledEnvelope(project, { id: plain.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 500 });
    expect(done).not.toHaveProperty('attempts');
    expect(await calls(key)).toBe(THRESHOLD + 1);
  });

  it('loses nothing when the object restarts mid-hold: the held request is sent at the probe time, not before', async () => {
    const project = await createProject();
    const { key, url } = failing(THRESHOLD);
    await openCircuit(project, url, 'circuit-restart');
    const held = await forward(project, { url, method: GET, queue: 'circuit-restart', retry: true });
    const waiting = await heldState(project, held.json.id, url);

    // Resets every object instance (storage kept), as a crash or a deploy would: the new one runs every queue's job at once.
    await abortAllDurableObjects();

    const done = await settledEnvelope(project, { id: held.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 200, attempts: [{ waited: 'circuit' }] });
    expect(done.executed).toBeGreaterThanOrEqual(waiting.next_attempt_at);
    expect(await calls(key)).toBe(THRESHOLD + 1);
  });

  it('keeps an open circuit across a restart: a request sent with retry afterwards is held', async () => {
    const project = await createProject();
    const { key, url } = failing(1000);
    await openCircuit(project, url, 'circuit-restart-open');

    await abortAllDurableObjects();

    const after = await forward(project, { url, method: GET, queue: 'circuit-restart-open', retry: true });
    await heldState(project, after.json.id, url);
    expect((await cancel(project, { id: after.json.id, url, method: GET })).json).toMatchObject({
      removed: true,
      message: 'The request was removed from its queue.',
    });
    expect(await calls(key)).toBe(THRESHOLD);
  });
});

describe("a destination's circuit, across the caller's queues", () => {
  it('lets one probe out at a time, and its success lets every held queue go on at once', async () => {
    const project = await createProject();
    const { key, url } = failing(THRESHOLD);
    const path = uniquePath('/echo/circuit-other-queue');
    await openCircuit(project, url, 'circuit-queues-0');
    const first = await forward(project, { url, method: GET, queue: 'circuit-queues-1', retry: true });
    const second = await forward(project, { url: `${origin}${path}`, method: GET, queue: 'circuit-queues-2', retry: true });

    const done = [
      await settledEnvelope(project, { id: first.json.id, url, method: GET }),
      await settledEnvelope(project, { id: second.json.id, url: `${origin}${path}`, method: GET }),
    ].sort((a, b) => a.executed - b.executed);
    for (const one of done) expect(one).toMatchObject({ status: 'resolved', status_code: 200, attempts: [{ waited: 'circuit' }] });
    // The later one was held while the probe was out (its lease is a minute): sent only once the probe's success came back.
    expect(done[1].executed).toBeGreaterThanOrEqual(done[0].responded);
    expect(await calls(key)).toBe(THRESHOLD + 1);
    expect(await received(path)).toBe(1);
  });

  it('frees the circuit at once when the probe is cancelled: the next request due becomes the probe', async () => {
    const project = await createProject();
    const { url } = failing(1000);
    await openCircuit(project, url, 'circuit-cancel-0');
    const gate = crypto.randomUUID();
    const gated = `${origin}/gate/hold/${gate}`;
    const probe = await forward(project, { url: gated, method: GET, queue: 'circuit-cancel-1', retry: true });
    await heldAtGate(gate);
    const { key: nextKey, url: nextUrl } = failing(0);
    const next = await forward(project, { url: nextUrl, method: GET, queue: 'circuit-cancel-2', retry: true });
    await heldState(project, next.json.id, nextUrl);

    expect((await cancel(project, { id: probe.json.id, url: gated, method: GET })).json).toMatchObject({ removed: true });
    // Held until the cancelled probe's lease (a minute) otherwise: settling within the poll's bound shows it went at once.
    expect(await settledEnvelope(project, { id: next.json.id, url: nextUrl, method: GET })).toMatchObject({ status: 'resolved', status_code: 200 });
    expect(await calls(nextKey)).toBe(1);
  });
});

describe("the owner's paused destinations", () => {
  it("lists the project's open circuit with its caller, failures and next probe, and nothing of another project", async () => {
    const project = await createProject();
    const other = await createProject();
    const { url } = failing(1000);
    await openCircuit(project, url, 'circuit-listed');

    let listed: Record<string, any>[] = [];
    await eventually('the open circuit is listed', async () => {
      listed = (await destinations(project)).json.list;
      return listed.length > 0;
    });
    expect(listed).toEqual([
      {
        origin: new URL(origin).origin,
        caller: expect.stringMatching(/^visitor:/),
        state: 'open',
        since: expect.any(Number),
        failures: THRESHOLD,
        next_probe_at: expect.any(Number),
      },
    ]);
    expect(listed[0].next_probe_at).toBeGreaterThan(listed[0].since);
    expect((await destinations(other)).json).toEqual({ list: [] });
    expect((await destinations(project, other.owner_key)).status).toBe(401);
  });

  it('drops a circuit from the listing once its probe succeeds', async () => {
    const project = await createProject();
    const { url } = failing(THRESHOLD);
    await openCircuit(project, url, 'circuit-unlisted');
    await eventually('the open circuit is listed', async () => (await destinations(project)).json.list.length === 1);
    const probe = await forward(project, { url, method: GET, queue: 'circuit-unlisted', retry: true });
    expect(await settledEnvelope(project, { id: probe.json.id, url, method: GET })).toMatchObject({ status_code: 200 });
    await eventually('the closed circuit is no longer listed', async () => (await destinations(project)).json.list.length === 0);
  });
});
