/**
 * The owner's view across callers (issue 34 item 2): each caller's history is in its own object, D1's caller
 * index names the objects, and a page asks at most MAX_CALLERS_PER_PAGE of them. Every request of every
 * caller is listed exactly once; a project with no more callers than a page asks reads newest first across
 * them; a walk over 10,000 callers stays within the bound on every page.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ownerForwardQuerySchema } from '../../schemas/forward-owner';
import type { HistoryOwner } from '../../src/forward/history';
import { listOwnerHistory, MAX_CALLERS_PER_PAGE } from '../../src/forward/owner-fan-out';
import { call, createProject, type TestProject } from '../helpers/api';
import { forward, origin, uniquePath } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

/** A visitor of its own: the caller is the address and user agent. */
const visitor = (n: number) => ({ headers: { 'cf-connecting-ip': `198.51.100.${n}`, 'user-agent': `caller-${n}` } });

const ownerPage = (project: TestProject, query: Record<string, string>) =>
  call('GET', `/v1/projects/${project.service_id}/forward/requests?${new URLSearchParams(query)}`, { token: project.owner_key });

/** Every page of the owner's listing, in order. */
async function walk(project: TestProject, query: Record<string, string>): Promise<Array<{ id: string; caller: string }>> {
  const items: Array<{ id: string; caller: string }> = [];
  let startKey: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const res = await ownerPage(project, { ...query, ...(startKey ? { startKey } : {}) });
    expect(res.status, res.text).toBe(200);
    items.push(...(res.json.list as Array<{ id: string; caller: string }>));
    if (res.json.endOfList) return items;
    startKey = res.json.startKey;
  }
  throw new Error('the walk did not end');
}

/** The real stores, with the calls of each page counted. */
function countingStores(serviceId: string) {
  const asked: string[] = [];
  const storeOf = (owner: HistoryOwner) => {
    const stub = forwardQueueStub(env, owner);
    return {
      ownerRows: (...args: Parameters<typeof stub.ownerRows>) => {
        asked.push(owner.callerKey);
        return stub.ownerRows(...args);
      },
      ownerFind: (...args: Parameters<typeof stub.ownerFind>) => {
        asked.push(owner.callerKey);
        return stub.ownerFind(...args);
      },
    };
  };
  return { asked, storeOf, serviceId };
}

describe("the owner's view across callers", () => {
  let project: TestProject;
  let url: string;
  const sent: Array<{ id: string; n: number }> = [];
  beforeAll(async () => {
    project = await createProject();
    url = `${origin}${uniquePath('/echo/across')}`;
    // 5 callers, 3 requests each, interleaved in time.
    for (let round = 0; round < 3; round++) {
      for (let n = 1; n <= 5; n++) {
        const res = await forward(project, { url, method: 'POST', data: { n, round } }, visitor(n));
        expect(res.status, res.text).toBe(200);
        sent.push({ id: res.headers.get('x-svc-request-id')!, n });
      }
    }
  });

  it('lists every request of every caller once, newest first across callers, page by page', async () => {
    const items = await walk(project, { url, limit: '4' });
    expect(items.map((item) => item.id)).toEqual(sent.map((item) => item.id).reverse());
    expect(new Set(items.map((item) => item.caller)).size).toBe(5);
  });

  it("finds one request by its id among the callers active when it was made, and each caller's filter asks that caller only", async () => {
    const one = await call('GET', `/v1/projects/${project.service_id}/forward/requests/${encodeURIComponent(sent[7].id)}`, { token: project.owner_key });
    expect(one.status, one.text).toBe(200);
    expect(one.json.id).toBe(sent[7].id);
    const caller = one.json.caller as string;
    const counted = countingStores(project.service_id);
    const page = await listOwnerHistory(
      env.DB,
      project.service_id,
      ownerForwardQuerySchema.parse({ caller }),
      { limit: 50, startKey: undefined },
      counted.storeOf,
    );
    expect(page.list).toHaveLength(3);
    expect(counted.asked).toHaveLength(1);
  });
});

describe("the owner's view over 10,000 callers", () => {
  const CALLERS = 10_000;
  let project: TestProject;
  let url: string;
  beforeAll(async () => {
    project = await createProject();
    url = `${origin}${uniquePath('/echo/many-callers')}`;
    // Two callers with requests, then 10,000 more in the index (callers whose rows expired, as far as a page knows).
    for (const n of [1, 2]) expect((await forward(project, { url, method: 'POST', data: { n } }, visitor(n))).status).toBe(200);
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
       INSERT INTO forward_callers (service_id, first_at, caller_key, last_at) SELECT ?1, 1000 + i, printf('v:seeded%05d', i), 2000 + i FROM n`,
    )
      .bind(project.service_id, CALLERS)
      .run();
  });

  it(`asks at most ${MAX_CALLERS_PER_PAGE} callers' objects a page, resumes where it stopped, and finds the callers with requests first`, async () => {
    const counted = countingStores(project.service_id);
    let startKey: string | undefined;
    const ids: string[] = [];
    for (let page = 0; page < 12; page++) {
      const before = counted.asked.length;
      const res = await listOwnerHistory(env.DB, project.service_id, ownerForwardQuerySchema.parse({}), { limit: 50, startKey }, counted.storeOf);
      expect(counted.asked.length - before).toBeLessThanOrEqual(MAX_CALLERS_PER_PAGE);
      ids.push(...res.list.map((item) => item.id));
      expect(res.endOfList).toBe(false);
      startKey = res.startKey!;
    }
    // The newest callers come first: the two with requests are on the first page.
    expect(ids).toHaveLength(2);
    // No caller was asked twice in the walk.
    expect(new Set(counted.asked).size).toBe(counted.asked.length);
    expect(counted.asked.length).toBe(12 * MAX_CALLERS_PER_PAGE);
  }, 120_000);
});
