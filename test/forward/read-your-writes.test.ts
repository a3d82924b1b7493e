/**
 * Read your own writes (issue 24, item 5): a request is listed by the caller's history and by the owner's
 * forwarding history from the moment its dispatch answered, with its current status, while the export of
 * its queue object's outbox to D1 is still on its way; a removal is gone from both at once.
 */
import { historyOf } from './history-store';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { cancel, forward, heldAtGate, history, loopback, origin, poll, settledEnvelope, uniquePath } from './support';

const ITERATIONS = 40;
/** Between iterations (never between a dispatch and its listing): the files beside this one keep their timing. */
const breather = () => new Promise((resolve) => setTimeout(resolve, 25));
const RANK: Record<string, number> = { pending: 0, running: 1, resolved: 2, failed: 2 };

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const ownerList = (query: Record<string, string>) =>
  call('GET', `/v1/projects/${project.service_id}/forward/requests?${new URLSearchParams(query)}`, { token: project.owner_key });

/** The request's item in the caller's listing and in the owner's, each read once (undefined when missing). */
async function listedBoth(url: string, id: string, query: Record<string, string> = {}) {
  const [mine, owners] = await Promise.all([
    history(project, { url, method: 'POST', limit: '100', ...query }),
    ownerList({ url, method: 'POST', limit: '100', ...query }),
  ]);
  expect(mine.status, mine.text).toBe(200);
  expect(owners.status, owners.text).toBe(200);
  const find = (list: Array<{ id: string; [field: string]: any }>) => list.filter((item) => item.id === id);
  return { mine: find(mine.json.list), owners: find(owners.json.list) };
}

describe('read your own writes in the forwarding history', () => {
  it('a direct request is listed, resolved with its status code, by both listings as soon as its dispatch answered', async () => {
    const url = `${origin}${uniquePath('/echo/ryw-direct')}`;
    for (let i = 0; i < ITERATIONS; i++) {
      await breather();
      const res = await forward(project, { url, method: 'POST', data: { i } });
      expect(res.status, res.text).toBe(200);
      const id = res.headers.get('x-svc-request-id')!;
      const { mine, owners } = await listedBoth(url, id);
      expect(mine, `iteration ${i}: caller's history`).toHaveLength(1);
      expect(owners, `iteration ${i}: owner's history`).toHaveLength(1);
      for (const item of [...mine, ...owners]) expect(item).toMatchObject({ status: 'resolved', status_code: 200, request_body: { i } });
    }
  });

  it('direct requests answering together share a history write, and each is listed at once and answers in full', async () => {
    const url = `${origin}${uniquePath('/echo/ryw-together')}`;
    for (let round = 0; round < 5; round++) {
      await breather();
      await Promise.all(
        Array.from({ length: 12 }, async (_, k) => {
          const res = await forward(project, { url, method: 'POST', data: { round, k } });
          expect(res.status, res.text).toBe(200);
          expect(JSON.parse(res.json.body)).toEqual({ round, k });
          const { mine, owners } = await listedBoth(url, res.headers.get('x-svc-request-id')!);
          expect(mine, `round ${round}, request ${k}: caller's history`).toHaveLength(1);
          expect(owners, `round ${round}, request ${k}: owner's history`).toHaveLength(1);
        }),
      );
    }
  });

  it('a queued request is listed by both listings as soon as its dispatch answered, with a status between the polls before and after, and resolved the moment a poll says so', async () => {
    const url = `${origin}${uniquePath('/echo/ryw-queued')}`;
    for (let i = 0; i < ITERATIONS; i++) {
      await breather();
      const res = await forward(project, { url, method: 'POST', queue: `ryw-${i % 3}`, data: { i } });
      expect(res.status, res.text).toBe(200);
      const address = { id: res.json.id, url, method: 'POST' };
      const before = (await poll(project, address)).json.status;
      const { mine, owners } = await listedBoth(url, address.id);
      const after = (await poll(project, address)).json.status;
      expect(mine, `iteration ${i}: caller's history`).toHaveLength(1);
      expect(owners, `iteration ${i}: owner's history`).toHaveLength(1);
      for (const item of [mine[0], owners[0]]) {
        expect(RANK[item.status], `iteration ${i}: ${before} <= ${item.status} <= ${after}`).toBeGreaterThanOrEqual(RANK[before]);
        expect(RANK[item.status], `iteration ${i}: ${before} <= ${item.status} <= ${after}`).toBeLessThanOrEqual(RANK[after]);
        expect(item.request_body).toEqual({ i });
      }
      await settledEnvelope(project, address);
      const settled = await listedBoth(url, address.id);
      for (const item of [...settled.mine, ...settled.owners]) expect(item, `iteration ${i}: settled`).toMatchObject({ status: 'resolved', status_code: 200 });
      expect(settled.mine.length + settled.owners.length, `iteration ${i}: settled`).toBe(2);
    }
  });

  it('each status change is listed at once: running while held, resolved (and found by a status filter) the moment a poll says so', async () => {
    const url = `${origin}/gate/hold/${crypto.randomUUID()}`;
    const gate = url.split('/').pop()!;
    const res = await forward(project, { url, method: 'POST', queue: 'ryw-gated' });
    expect(res.status, res.text).toBe(200);
    const address = { id: res.json.id, url, method: 'POST' };
    await heldAtGate(gate);
    const running = await listedBoth(url, address.id, { status: 'running' });
    expect(running.mine.map((item) => item.status)).toEqual(['running']);
    expect(running.owners.map((item) => item.status)).toEqual(['running']);
    await loopback(`/gate/open/${gate}`);
    await settledEnvelope(project, address);
    const resolved = await listedBoth(url, address.id, { status: 'resolved' });
    expect(resolved.mine.map((item) => item.status)).toEqual(['resolved']);
    expect(resolved.owners.map((item) => item.status)).toEqual(['resolved']);
    const stale = await listedBoth(url, address.id, { status: 'running' });
    expect(stale).toEqual({ mine: [], owners: [] });
  });

  it('a cancelled request is gone from both listings as soon as the cancel answered', async () => {
    const gate = crypto.randomUUID();
    const url = `${origin}${uniquePath('/echo/ryw-cancel')}`;
    await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'GET', queue: 'ryw-cancel' });
    await heldAtGate(gate);
    for (let i = 0; i < 10; i++) {
      const res = await forward(project, { url, method: 'POST', queue: 'ryw-cancel', data: { i } });
      const address = { id: res.json.id, url, method: 'POST' };
      expect((await listedBoth(url, address.id)).mine).toHaveLength(1);
      expect((await cancel(project, address)).json.removed).toBe(true);
      expect(await listedBoth(url, address.id), `iteration ${i}`).toEqual({ mine: [], owners: [] });
    }
    await loopback(`/gate/open/${gate}`);
  });

  it('paging stays exact while changes are on their way: every request once, newest first', async () => {
    const url = `${origin}${uniquePath('/echo/ryw-paging')}`;
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await forward(project, { url, method: 'POST', queue: `ryw-page-${i % 4}`, data: { i } });
      made.push(res.json.id);
    }
    for (const list of [
      (q: Record<string, string>) => history(project, { url, method: 'POST', ...q }),
      (q: Record<string, string>) => ownerList({ url, ...q }),
    ]) {
      const seen: string[] = [];
      let startKey: string | undefined;
      for (;;) {
        const res = await list({ limit: '5', ...(startKey ? { startKey } : {}) });
        expect(res.status, res.text).toBe(200);
        seen.push(...res.json.list.map((item: { id: string }) => item.id));
        if (res.json.endOfList) break;
        startKey = res.json.startKey;
      }
      expect(seen).toEqual([...made].sort().reverse());
    }
  });

  it("a queued request refused for the caller's queued limit is in neither listing and leaves no row", async () => {
    await putSecret(project, 'ryw-queued-one', 'sk_ryw_1', { limits: { queued_per_caller: 1 } });
    const gate = crypto.randomUUID();
    const url = `${origin}${uniquePath('/echo/ryw-refused')}`;
    const using = { secretName: 'ryw-queued-one', headers: { 'x-key': '$CLIENT_SECRET' } };
    expect((await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'GET', queue: 'ryw-limit', ...using })).status).toBe(200);
    await heldAtGate(gate);
    for (let i = 0; i < 5; i++) {
      const refused = await forward(project, { url, method: 'POST', queue: 'ryw-limit', data: { i }, ...using });
      expect(refused.status, refused.text).toBe(429);
    }
    const [mine, owners] = await Promise.all([history(project, { url, method: 'POST' }), ownerList({ url })]);
    expect([mine.json.list, owners.json.list]).toEqual([[], []]);
    const { results: rows } = await historyOf(project.service_id)
      .prepare('SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND url = ?')
      .bind(project.service_id, url)
      .all<{ n: number }>();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.reduce((sum, row) => sum + row.n, 0)).toBe(0);
    await loopback(`/gate/open/${gate}`);
  });
});
