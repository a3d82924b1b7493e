/**
 * Every invocation fits Cloudflare's limits by design (issue 25 item 2, docs/limits.md "Invocations"):
 * each queued request's run and each continuation is an invocation of its own, and maintenance work is
 * cut so one invocation stays inside the Free plan's 50 D1 queries. Strict mode (on in the suite)
 * fails any invocation past the Paid limits; `mostSpentIn` shows the Free fit.
 */
import { createExecutionContext, createScheduledController, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import worker from '../../src/index';
import { forgetSpent, mostSpentIn, PLAN_LIMITS } from '../../src/platform/strict-limits';
import { failingDb } from '../actions/failing-db';
import { loggedConsumptions, settle } from '../actions/run-support';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { forward, heldAtGate, loopback, origin, readStream } from '../forward/support';
import { ticketStub } from '../../src/platform/object-stubs';

const FREE = PLAN_LIMITS.free;

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'free' });
});

describe('each queued request runs in an invocation of its own', () => {
  it("a caller's 10 streamed requests in 10 queues are at the destination at once, and all finish", async () => {
    const gate = crypto.randomUUID();
    const sent = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const url = `${origin}/gate/hold/${gate}`;
        const res = await forward(project, { url, method: 'POST', stream: true, queue: `held-${i}`, data: { i } });
        expect(res.status).toBe(200);
        return { id: res.json.id as string, url, method: 'POST' };
      }),
    );
    try {
      // Six connections per invocation: ten sends held at once are ten invocations.
      await heldAtGate(gate, 10);
    } finally {
      await fetch(`${origin}/gate/open/${gate}`);
    }
    for (const request of sent) {
      const read = await readStream(project, request);
      expect(read.envelope.status).toBe('resolved');
      expect(JSON.parse(read.text)).toEqual({ released: true });
    }
  });

  it('12 queued requests of one queue run one at a time, in the order they were made', async () => {
    const key = crypto.randomUUID();
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) {
      const res = await forward(project, { url: `${origin}/seq/${key}/${n}`, method: 'GET', queue: 'one-by-one' });
      ids.push(res.json.id as string);
    }
    await vi.waitFor(async () => expect((await loopback(`/seq-state/${key}`)).order).toHaveLength(12), { timeout: 15_000, interval: 50 });
    const state = await loopback(`/seq-state/${key}`);
    expect(state.order).toEqual(Array.from({ length: 12 }, (_, n) => n));
    expect(state.maxInFlight).toBe(1);
  });
});

describe('each continuation runs in an invocation of its own', () => {
  it('a resp-and-resume ticket consumed 200 times with a 2 s req after resp: every continuation finishes and is logged', async () => {
    const key = crypto.randomUUID();
    // The production outbound limit (10 s) for this test, not the suite's 2 s: 200 runs share 2 busy cores.
    const shortened = env.OUTBOUND_CALL_MS;
    env.OUTBOUND_CALL_MS = '10000';
    onTestFinished(() => void (env.OUTBOUND_CALL_MS = shortened));
    await registerTicket(project, 'slow-after-resp', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/delay/2000/${key}` } },
      ],
    });
    for (let from = 0; from < 200; from += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => call('POST', `/tp/${project.service_id}/slow-after-resp`, { body: {} })));
      for (const answer of answers) expect(answer.json).toBe('accepted');
    }
    await vi.waitFor(async () => expect((await loopback(`/delay-state/${key}`)).answered).toBe(200), { timeout: 150_000, interval: 250 });
    await settle(project, 'slow-after-resp');
    const logged = await loggedConsumptions(project, 'slow-after-resp');
    expect(logged).toHaveLength(200);
    for (const row of logged) {
      expect(row.failed, JSON.stringify(row)).toBe(0);
      expect(row.description.continuation?.finished).toEqual(expect.any(Number));
      expect(row.actions.map((a) => [a.path, a.detail?.received?.status])).toEqual([
        ['actions[0]', undefined],
        ['actions[1]', 200],
      ]);
    }
    const state = await loopback(`/delay-state/${key}`);
    // More than one alarm's 6 connections at once, never more than the object lets run (ticket-do.ts).
    expect(state.most).toBeGreaterThan(6);
    expect(state.most).toBeLessThanOrEqual(16);
  }, 180_000);
});

describe("maintenance fits the Free plan's 50 D1 queries per invocation", () => {
  it('a ticket log export of 100 signed-in consumptions with 50 actions each', async () => {
    const actions = Array.from({ length: 50 }, (_, i) => ({ act: 'req', exe: { url: `${origin}/echo/${i}` } }));
    await registerTicket(project, 'fifty-actions', { actions });
    const user = await mintUser(project);
    const stub = ticketStub(env, project.service_id, 'fifty-actions');
    // The object's env counts what reaches the binding set on it: set the suite's own D1, never a counted one.
    const setDb = (db: D1Database) => runInDurableObject(stub, (instance) => void ((instance as unknown as { env: { DB: D1Database } }).env.DB = db));
    const realDb = env.DB;
    await call('POST', `/tpa/${project.service_id}/fifty-actions`, { token: user.id_token, body: {} });
    // The export waits (D1 refuses its index rows) until all 100 are in the outbox: then one export takes them.
    await setDb(failingDb(realDb, /user_consumptions/));
    try {
      for (let from = 1; from < 100; from += 11) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(11, 100 - from) }, () => call('POST', `/tpa/${project.service_id}/fifty-actions`, { token: user.id_token, body: {} })),
        );
        for (const answer of answers) expect(answer.status).toBe(200);
      }
    } finally {
      await setDb(realDb);
    }
    expect(await stub.pendingLogCount()).toBe(100);
    forgetSpent();
    while ((await stub.pendingLogCount()) > 0) await runDurableObjectAlarm(stub);
    const spent = mostSpentIn('alarm TicketDO.alarm');
    expect(spent.d1Queries).toBeGreaterThan(0);
    expect(spent.d1Queries).toBeLessThanOrEqual(FREE.d1Queries);
    const listed = await call('GET', `/v1/projects/${project.service_id}/consumed?ticket_id=fifty-actions&limit=100`, { token: user.id_token });
    expect(listed.json.list).toHaveLength(100);
  }, 60_000);

  it('retention of 50,000 old rows: the cron and each continuation message', async () => {
    const old = await createProject({ plan: 'free' });
    const long = Date.now() - 40 * 86_400_000;
    await seedOldRows(old.service_id, long, 50_000);
    forgetSpent();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '17 3 * * *' }), env, ctx);
    await waitOnExecutionContext(ctx);
    await vi.waitFor(async () => expect(await oldRowsOf(old.service_id)).toBe(0), { timeout: 60_000, interval: 250 });
    const cron = mostSpentIn('cron ');
    const messages = mostSpentIn('queue batch of svc-work');
    expect(cron.d1Queries).toBeLessThanOrEqual(FREE.d1Queries);
    expect(messages.d1Queries).toBeGreaterThan(0);
    expect(messages.d1Queries).toBeLessThanOrEqual(FREE.d1Queries);
  }, 90_000);

  it("clear-log of 50,000 rows: the owner's call and each continuation message", async () => {
    const cleared = await createProject({ plan: 'standard' });
    await registerTicket(cleared, 'old-log', { actions: [] });
    await seedOldRows(cleared.service_id, Date.now() - 86_400_000, 50_000, 'old-log');
    forgetSpent();
    const res = await call('POST', `/v1/projects/${cleared.service_id}/tickets/old-log/clear-log`, { token: cleared.owner_key, body: {} });
    expect(res.status).toBe(200);
    await vi.waitFor(async () => expect(await oldRowsOf(cleared.service_id)).toBe(0), { timeout: 60_000, interval: 250 });
    for (const where of ['request POST', 'rpc TicketDO.', 'alarm TicketDO.alarm', 'queue batch of svc-work']) {
      expect(mostSpentIn(where).d1Queries, where).toBeLessThanOrEqual(FREE.d1Queries);
    }
  }, 90_000);
});

/**
 * `count` rows of a ticket's log as D1 kept them before the log moved into each ticket's object (half
 * consumption rows, half action rows), and as many per-user index rows unless `ticketId` is given (a
 * clear leaves the index to retention), all at `timestamp`.
 */
async function seedOldRows(serviceId: string, timestamp: number, count: number, ticketId?: string): Promise<void> {
  const half = count / 2;
  const numbers = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${half - 1})`;
  const ticket = ticketId ?? 'hook';
  await env.DB.batch([
    env.DB.prepare(
      `${numbers} INSERT INTO ticket_logs (service_id, ticket_id, log_key, consume_id, user_id, signed, is_check, failed, code, timestamp, description)
         SELECT ?1, ?2, 'old-' || i, 'old-' || i, 'u', 0, 0, 0, NULL, ?3, '{}' FROM n`,
    ).bind(serviceId, ticket, timestamp),
    env.DB.prepare(
      `${numbers} INSERT INTO ticket_action_rows (service_id, ticket_id, consume_id, seq, path, act, timestamp, detail)
         SELECT ?1, ?2, 'old-' || i, 0, 'actions[0]', 'req', ?3, '{}' FROM n`,
    ).bind(serviceId, ticket, timestamp),
    ...(ticketId === undefined
      ? [
          env.DB.prepare(
            `${numbers} INSERT INTO user_consumptions (service_id, user_id, timestamp, ticket_id, log_key) SELECT ?1, 'u' || (i % 50), ?3, ?2, 'old-' || i FROM n`,
          ).bind(serviceId, ticket, timestamp),
        ]
      : []),
  ]);
}

async function oldRowsOf(serviceId: string): Promise<number> {
  const counts = await env.DB.batch<{ n: number }>(
    ['ticket_logs', 'ticket_action_rows', 'user_consumptions'].map((table) =>
      env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE service_id = ?`).bind(serviceId),
    ),
  );
  return counts.reduce((sum, result) => sum + (result.results[0]?.n ?? 0), 0);
}
