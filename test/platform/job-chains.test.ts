/**
 * Every chain of work restarts from a fresh event (issue 33 item 2, docs/limits.md "Invocations"): a
 * queued request's run and a continuation never start the next one from their own invocation, so a
 * long queue or a long run of continuations never recurses deeper than alarm → runJob. Strict mode is
 * on; through the real Worker and a loopback destination.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deepestChain, forgetDeepest } from '../../src/platform/strict-limits';
import { loggedConsumptions, settle } from '../actions/run-support';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { forward, heldAtGate, loopback, origin, readStream } from '../forward/support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
// The production outbound limit (10 s), not the suite's 2 s: hundreds of runs share 2 busy cores.
const shortened = env.OUTBOUND_CALL_MS;
beforeAll(async () => {
  env.OUTBOUND_CALL_MS = '10000';
  forgetDeepest();
  project = await createProject({ plan: 'standard' });
});
afterAll(() => void (env.OUTBOUND_CALL_MS = shortened));

/**
 * Dispatches `count` requests to /seq/<key>/<n> at once behind a request held at a gate (so none
 * settles meanwhile and each answer's `in_queue` is its place), opens the gate; answers the ns in
 * the order of their places.
 */
async function queueBehind(queue: string, gate: string, key: string, count: number): Promise<number[]> {
  await heldAtGate(gate);
  const places = await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const res = await forward(project, { url: `${origin}/seq/${key}/${n}`, method: 'GET', queue });
      expect(res.status, res.text).toBe(200);
      return { n, place: res.json.in_queue as number };
    }),
  );
  await fetch(`${origin}/gate/open/${gate}`);
  expect(new Set(places.map((p) => p.place)).size).toBe(count);
  return places.sort((a, b) => a.place - b.place).map((p) => p.n);
}

async function servedInOrder(key: string, expected: number[]): Promise<void> {
  await vi.waitFor(async () => expect((await loopback(`/seq-state/${key}`)).order).toHaveLength(expected.length), { timeout: 90_000, interval: 100 });
  const state = await loopback(`/seq-state/${key}`);
  expect(state.order).toEqual(expected);
  expect(state.maxInFlight).toBe(1);
}

describe('a queue served back to back', () => {
  it('200 requests of one queue dispatched at once: all settled, in order, one at a time', async () => {
    const gate = crypto.randomUUID();
    const key = crypto.randomUUID();
    const head = await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'POST', queue: 'two-hundred' });
    expect(head.status).toBe(200);
    const expected = await queueBehind('two-hundred', gate, key, 200);
    const opened = Date.now();
    await servedInOrder(key, expected);
    console.log(`200 queued requests served in ${Date.now() - opened} ms`);
    await vi.waitFor(async () => expect((await call('GET', `/v1/projects/${project.service_id}/forward/queue?queue=two-hundred`)).json.in_queue).toBe(0), {
      timeout: 10_000,
      interval: 100,
    });
  }, 120_000);

  it('a streamed request followed by 50 queued ones in its queue', async () => {
    const gate = crypto.randomUUID();
    const key = crypto.randomUUID();
    const url = `${origin}/gate/hold/${gate}`;
    const streamed = await forward(project, { url, method: 'POST', stream: true, queue: 'after-stream' });
    expect(streamed.status).toBe(200);
    const expected = await queueBehind('after-stream', gate, key, 50);
    const read = await readStream(project, { id: streamed.json.id as string, url, method: 'POST' });
    expect(read.envelope.status).toBe('resolved');
    expect(JSON.parse(read.text)).toEqual({ released: true });
    await servedInOrder(key, expected);
  }, 60_000);
});

describe('continuations served back to back', () => {
  it('500 resp-and-resume consumptions of one ticket: every continuation finished and logged', async () => {
    const key = crypto.randomUUID();
    await registerTicket(project, 'five-hundred', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/delay/0/${key}` } },
      ],
    });
    for (let from = 0; from < 500; from += 25) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => call('POST', `/tp/${project.service_id}/five-hundred`, { body: {} })));
      for (const answer of answers) expect(answer.json).toBe('accepted');
    }
    const stub = ticketStub(env, project.service_id, 'five-hundred');
    await vi.waitFor(async () => expect((await stub.scheduledJobs()).filter((job) => job.kind === 'continuation')).toEqual([]), {
      timeout: 90_000,
      interval: 250,
    });
    await settle(project, 'five-hundred');
    const logged = await loggedConsumptions(project, 'five-hundred');
    expect(logged).toHaveLength(500);
    // Locally a few of the 500 sends time out before reaching the loopback server (main does the same):
    // such a continuation still finishes, logged with its failed req.
    const timedOut = logged.filter((row) => row.failed !== 0);
    console.log(`500 continuations: ${timedOut.length} req(s) timed out before the destination`);
    expect((await loopback(`/delay-state/${key}`)).answered + timedOut.length).toBeGreaterThanOrEqual(500);
    for (const row of logged) {
      expect(row.description.continuation?.finished, JSON.stringify(row)).toEqual(expect.any(Number));
      expect(row.actions.map((a) => [a.path, a.detail?.received?.status ?? a.detail?.error?.code])).toEqual([
        ['actions[0]', undefined],
        ['actions[1]', row.failed ? 'REQUEST_FAILED' : 200],
      ]);
    }
    expect(await stub.deadJobs()).toEqual([]);
  }, 150_000);
});

describe('call depth', () => {
  // Runs after the chains above (vitest keeps a file's order): production refuses a chain past 16 links.
  it('the deepest chain any of these tests reached is at most 4 links', () => {
    const deepest = deepestChain();
    console.log(`deepest chain: ${deepest.depth} links: ${deepest.chain.join(' → ')}`);
    expect(deepest.depth).toBeGreaterThanOrEqual(2);
    expect(deepest.depth).toBeLessThanOrEqual(4);
  });
});
