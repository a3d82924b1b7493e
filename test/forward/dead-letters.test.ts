/**
 * Extension (issue 36 item 3): a queued request sent with `retry` that fails after its last attempt is a
 * dead letter, kept marked in its caller's history and listed for the owner with why (GET
 * /v1/projects/{service_id}/forward/dead-letters). A request without `retry` never is (spec unchanged).
 * Destinations: the loopback server's /busy (429 n times) and /failing (500 n times) routes.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { forwardQueueStub } from '../../src/platform/object-stubs';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, type TestProject } from '../helpers/api';
import { eventually, forward, history, loopback, origin, settledEnvelope } from './support';

const GET = 'GET' as const;

const deadLetters = (project: TestProject, query: Record<string, string> = {}, token = project.owner_key) =>
  call('GET', `/v1/projects/${project.service_id}/forward/dead-letters?${new URLSearchParams(query)}`, { token });

/** Sends a queued GET and waits until it settles; answers its id, url and last envelope. */
async function settledRequest(project: TestProject, url: string, options: Record<string, unknown>, token?: string) {
  const sent = await forward(project, { url, method: GET, ...options }, token === undefined ? {} : { token });
  expect(sent.status, sent.text).toBe(200);
  const done = await settledEnvelope(project, { id: sent.json.id, url, method: GET }, token === undefined ? {} : { token });
  return { id: sent.json.id as string, url, done };
}

let project: TestProject;
let user: { user_id: string; id_token: string };
const sent: Record<string, { id: string; url: string; done: Record<string, any> }> = {};

beforeAll(async () => {
  project = await createProject();
  user = await mintUser(project);
  const key = () => crypto.randomUUID();
  // Each in a queue of its own, so they run side by side; the longest waits out one second.
  const [outOfTime, failing, recovered, plain, byUser] = await Promise.all([
    settledRequest(project, `${origin}/busy/${key()}/5`, { queue: 'dl-out-of-time', retry: { within: 2 } }),
    settledRequest(project, `${origin}/fail/${key()}/5/500`, { queue: 'dl-failing', retry: true }),
    settledRequest(project, `${origin}/busy/${key()}/1`, { queue: 'dl-recovered', retry: true }),
    settledRequest(project, `${origin}/fail/${key()}/5/500`, { queue: 'dl-plain' }),
    settledRequest(project, `${origin}/fail/${key()}/5/500`, { queue: 'dl-user', retry: true }, user.id_token),
  ]);
  Object.assign(sent, { outOfTime, failing, recovered, plain, byUser });
  // The listing reads the callers' histories: wait until the three dead letters are there.
  await eventually('the dead letters are listed', async () => (await deadLetters(project)).json.list?.length === 3);
});

const listed = async (query: Record<string, string> = {}) => {
  const res = await deadLetters(project, query);
  expect(res.status, res.text).toBe(200);
  return res.json.list as Array<Record<string, any>>;
};

describe('dead letters of forwarding', () => {
  it('a request sent with retry that ran out of `within` on 429s is listed with its waits and last status', async () => {
    const { id, url, done } = sent.outOfTime;
    expect(done).toMatchObject({ status: 'resolved', status_code: 429, dead_letter: 'retry_window_ended' });
    const item = (await listed()).find((entry) => entry.id === id);
    expect(item).toEqual({
      id,
      kind: 'forward',
      what: `GET ${url}`,
      created: done.created,
      failed_at: done.updated,
      reason: 'retry_window_ended',
      status_code: 429,
      attempts: 2,
      waits: [{ at: expect.any(Number), status_code: 429, waited_ms: 1000 }],
      forward: { caller: expect.stringMatching(/^visitor:/), method: GET, url, queue_name: 'dl-out-of-time', full_id: `GET:${id}:${url}` },
    });
    expect(await loopback(`/calls/${new URL(url).pathname.split('/')[2]}`)).toEqual({ calls: 2 });
  });

  it('a request sent with retry that settled 500 is listed once, never resent', async () => {
    const { id, url, done } = sent.failing;
    expect(done).toMatchObject({ status: 'resolved', status_code: 500 });
    const item = (await listed()).find((entry) => entry.id === id);
    expect(item).toMatchObject({ reason: 'error_status', status_code: 500, attempts: 1, waits: [] });
    expect(await loopback(`/calls/${new URL(url).pathname.split('/')[2]}`)).toEqual({ calls: 1 });
  });

  it('a request that succeeded after waiting out a 429 is not a dead letter', async () => {
    expect(sent.recovered.done).toMatchObject({ status: 'resolved', status_code: 200 });
    expect(sent.recovered.done).not.toHaveProperty('dead_letter');
    expect((await listed()).map((entry) => entry.id)).not.toContain(sent.recovered.id);
  });

  it('a request without retry that got 500 is not a dead letter, and its history item is as the spec has it', async () => {
    const { id, url, done } = sent.plain;
    expect(done).toMatchObject({ status: 'resolved', status_code: 500 });
    expect((await listed()).map((entry) => entry.id)).not.toContain(id);
    const item = (await history(project, { url, method: GET })).json.list[0];
    expect(item).toMatchObject({ id, status_code: 500 });
    expect(item).not.toHaveProperty('dead_letter');
  });

  it("marks the dead letter in the caller's history item", async () => {
    const { url, id } = sent.failing;
    const item = (await history(project, { url, method: GET })).json.list[0];
    expect(item).toMatchObject({ id, dead_letter: 'error_status' });
  });

  it("lists one caller's dead letters with caller, and every caller's without", async () => {
    const all = await listed();
    expect(all.map((entry) => entry.id).sort()).toEqual([sent.outOfTime.id, sent.failing.id, sent.byUser.id].sort());
    const mine = await listed({ caller: user.user_id });
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ id: sent.byUser.id, reason: 'error_status', forward: { caller: user.user_id } });
    expect(await listed({ caller: 'visitor:nobody' })).toEqual([]);
  });

  it('filters by reason', async () => {
    expect((await listed({ reason: 'retry_window_ended' })).map((entry) => entry.id)).toEqual([sent.outOfTime.id]);
    expect(await listed({ reason: 'timeout' })).toEqual([]);
  });

  it('pages with startKey: every dead letter once, newest first', async () => {
    const seen: string[] = [];
    let startKey: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await deadLetters(project, { limit: '1', ...(startKey ? { startKey } : {}) });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.json.list.map((entry: { id: string }) => entry.id));
      startKey = res.json.startKey;
      if (!startKey) break;
    }
    expect(seen).toEqual((await listed()).map((entry) => entry.id));
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
  });

  it("another project's owner sees none of them", async () => {
    const other = await createProject();
    expect((await deadLetters(other)).json).toMatchObject({ list: [], endOfList: true });
    const foreign = await deadLetters(project, {}, other.owner_key);
    expect(foreign.status).not.toBe(200);
    expect(foreign.text).not.toContain(sent.failing.id);
    const byUser = await deadLetters(project, {}, user.id_token);
    expect(byUser.status).toBe(403);
  });

  it("counts each caller's dead letters in the project's storage (D1 project_storage), and nothing for a failure without retry", async () => {
    const parts = async (serviceId: string) =>
      (
        await env.DB.prepare("SELECT part, bytes FROM project_storage WHERE service_id = ? AND part LIKE 'forward-dead-letters:%' ORDER BY part")
          .bind(serviceId)
          .all<{ part: string; bytes: number }>()
      ).results;
    await eventually('both callers reported their dead letters', async () => (await parts(project.service_id)).length === 2);
    const reported = await parts(project.service_id);
    expect(reported.map((row) => row.part)).toContain(`forward-dead-letters:u:${user.user_id}`);
    const [userBytes, visitorBytes] = [
      reported.find((row) => row.part.endsWith(user.user_id))!.bytes,
      reported.find((row) => !row.part.endsWith(user.user_id))!.bytes,
    ];
    // The visitor has two dead letters, the user one: each counts its row and its texts.
    expect(userBytes).toBeGreaterThan(100);
    expect(visitorBytes).toBeGreaterThan(userBytes);

    const other = await createProject();
    const plain = await settledRequest(other, `${origin}/fail/${crypto.randomUUID()}/5/500`, { queue: 'dl-other-plain' });
    expect(plain.done).toMatchObject({ status_code: 500 });
    await eventually('the failure is in the history', async () => (await history(other, { url: plain.url, method: GET })).json.list?.length === 1);
    expect(await parts(other.service_id)).toEqual([]);
  });

  it("a dead letter swept with its history row (the caller's expires) leaves the storage count", async () => {
    const other = await createProject();
    const expiring = await settledRequest(other, `${origin}/fail/${crypto.randomUUID()}/5/500`, { queue: 'dl-expiring', retry: true, expires: 1 });
    expect(expiring.done).toMatchObject({ status_code: 500, dead_letter: 'error_status' });
    const bytes = async () =>
      (
        await env.DB.prepare("SELECT bytes FROM project_storage WHERE service_id = ? AND part LIKE 'forward-dead-letters:%'")
          .bind(other.service_id)
          .first<{ bytes: number }>()
      )?.bytes;
    await eventually('the dead letter is counted', async () => ((await bytes()) ?? 0) > 0);
    // Its row expires a second after it was made; the sweep at that time reports 0.
    await eventually('the swept dead letter is no longer counted', async () => (await bytes()) === 0);
    expect((await deadLetters(other)).json.list).toEqual([]);
  });

  it("is kept for the plan's log retention (standard: 90 days), while a caller's own expires stays as asked", async () => {
    const standard = await createProject({ plan: 'standard' });
    const member = await mintUser(standard);
    await settledRequest(standard, `${origin}/fail/${crypto.randomUUID()}/5/500`, { queue: 'dl-kept', retry: true }, member.id_token);
    await settledRequest(standard, `${origin}/fail/${crypto.randomUUID()}/5/500`, { queue: 'dl-asked', retry: true, expires: 3_600 }, member.id_token);
    await settledRequest(standard, `${origin}/fail/${crypto.randomUUID()}/5/500`, { queue: 'dl-none' }, member.id_token);
    const stub = forwardQueueStub(env, { serviceId: standard.service_id, callerKey: `u:${member.user_id}` });
    const keptDays = () =>
      runInDurableObject(stub, (_instance, state) =>
        state.storage.sql
          .exec<{ queue_name: string; days: number }>(
            'SELECT queue_name, (expires_at - updated) / 86400000.0 AS days FROM forward_requests ORDER BY queue_name',
          )
          .toArray(),
      );
    await eventually('the dead letter is kept 90 days', async () => (await keptDays()).find((row) => row.queue_name === 'dl-kept')?.days === 90);
    const days = Object.fromEntries((await keptDays()).map((row) => [row.queue_name, row.days]));
    expect(days['dl-none']).toBe(30);
    expect(days['dl-asked']).toBeLessThan(1);
  });

  it('refuses an unknown reason or filter with INVALID_PARAMETER naming the field', async () => {
    for (const [query, field] of [
      [{ reason: 'exploded' }, 'reason'],
      [{ status: 'failed' }, 'status'],
      [{ from: 'yesterday' }, 'from'],
    ] as const) {
      const res = await deadLetters(project, query);
      expect(res.status, res.text).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field } });
    }
  });
});
