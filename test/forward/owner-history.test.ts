/**
 * The owner's forwarding history (issue 15): every caller's requests of the project, newest first, with
 * spec 4.3's filters plus caller, stream and a time range, paged; one request in full (headers and url as
 * written with $CLIENT_SECRET, a streamed request's text from its queue object); owner key only; the
 * key's value never in an answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, putSecret, type TestProject } from '../helpers/api';
import { eventually, forward, heldAtGate, loopback, origin, readStream, settledEnvelope, type As } from './support';

const SECRET = 'sk-owner-view-8Hq2LxW';

let project: TestProject;
let user: { user_id: string; id_token: string };
const visitor: As = { headers: { 'user-agent': 'owner-history-visitor' } };
const asUser = (): As => ({ token: user.id_token });
const base = `${origin}/echo/owner-history`;
const ids: Record<string, string> = {};
const gate = crypto.randomUUID();
const streamUrl = `${origin}/pieces/${crypto.randomUUID()}`;
const pieces = ['data: one\n\n', 'data: two\n\n', 'data: three\n\n'];

const list = (query: Record<string, string> = {}, token?: string) =>
  call('GET', `/v1/projects/${project.service_id}/forward/requests?${new URLSearchParams(query)}`, { token: token ?? project.owner_key });
const one = (id: string, token?: string) =>
  call('GET', `/v1/projects/${project.service_id}/forward/requests/${encodeURIComponent(id)}`, { token: token ?? project.owner_key });

async function listed(query: Record<string, string> = {}): Promise<any[]> {
  const res = await list(query);
  expect(res.status, res.text).toBe(200);
  return res.json.list;
}
const namesOf = (items: { id: string }[]) => items.map((item) => Object.keys(ids).find((name) => ids[name] === item.id)).sort();

async function queued(name: string, body: Record<string, unknown>, as: As): Promise<void> {
  const res = await forward(project, { method: 'POST', ...body }, as);
  expect(res.status, res.text).toBe(200);
  ids[name] = res.json.id;
}

beforeAll(async () => {
  project = await createProject();
  user = await mintUser(project);
  await putSecret(project, 'owner-view', SECRET);
  // The visitor: a direct request with the key in url and header, two queued ones, a streamed one.
  const direct = await forward(
    project,
    {
      url: `${base}/direct?key=$CLIENT_SECRET`,
      method: 'POST',
      secretName: 'owner-view',
      headers: { 'x-key': 'Key $CLIENT_SECRET', authorization: 'Bearer typed-by-caller' },
      data: { who: 'visitor' },
    },
    visitor,
  );
  expect(direct.status, direct.text).toBe(200);
  ids.direct = direct.headers.get('x-svc-request-id')!;
  // A direct request to a port nobody listens on: failed, REQUEST_FAILED.
  const failed = await forward(project, { url: 'http://127.0.0.1:9/', method: 'POST', data: { n: 0 } }, visitor);
  expect(failed.status, failed.text).toBe(502);
  await queued('alpha', { url: `${base}/a`, queue: 'alpha-1', data: { n: 1 } }, visitor);
  await queued('beta', { url: `${base}/a`, queue: 'beta', data: { n: 2 } }, visitor);
  await queued('streamed', { url: streamUrl, stream: true, data: { pieces, gap_ms: 10 } }, visitor);
  // The user: a settled request, then one held at a gate (running) and one behind it (pending).
  await queued('user-1', { url: `${base}/a`, queue: 'alpha-2', data: { n: 3 } }, asUser());
  await settledEnvelope(project, { id: ids['user-1'], url: `${base}/a`, method: 'POST' }, asUser());
  await queued('held', { url: `${origin}/gate/hold/${gate}`, method: 'GET', queue: 'gated' }, asUser());
  await queued('waiting', { url: `${base}/a`, queue: 'gated', data: { n: 4 } }, asUser());
  await heldAtGate(gate);
  for (const name of ['alpha', 'beta']) await settledEnvelope(project, { id: ids[name], url: `${base}/a`, method: 'POST' }, visitor);
  await readStream(project, { id: ids.streamed, url: streamUrl, method: 'POST' }, 0, visitor);
  await eventually('every request reached the history', async () => (await listed()).length === 8);
  ids.failed = (await listed({ url: 'http://127.0.0.1:9/' }))[0].id;
});

describe("the owner's forwarding history", () => {
  it("lists every caller's requests newest first, each named by its caller", async () => {
    const items = await listed();
    expect(namesOf(items)).toEqual(['alpha', 'beta', 'direct', 'failed', 'held', 'streamed', 'user-1', 'waiting']);
    const ordered = items.map((item) => item.id);
    expect(ordered).toEqual([...ordered].sort().reverse());
    const callers = new Set(items.map((item) => item.caller));
    expect(callers.has(user.user_id)).toBe(true);
    const visitorName = items.find((item) => item.id === ids.alpha).caller;
    expect(visitorName).toMatch(/^visitor:[A-Za-z0-9_-]+$/);
    expect(callers.size).toBe(2);
  });

  it('filters by caller: a user id or a visitor name', async () => {
    expect(namesOf(await listed({ caller: user.user_id }))).toEqual(['held', 'user-1', 'waiting']);
    const visitorName = (await listed()).find((item) => item.id === ids.alpha).caller;
    expect(namesOf(await listed({ caller: visitorName }))).toEqual(['alpha', 'beta', 'direct', 'failed', 'streamed']);
    expect(await listed({ caller: 'visitor:nobody' })).toEqual([]);
  });

  it('filters by url and method, each alone or together', async () => {
    expect(namesOf(await listed({ url: `${base}/a` }))).toEqual(['alpha', 'beta', 'user-1', 'waiting']);
    expect(namesOf(await listed({ method: 'GET' }))).toEqual(['held']);
    expect(namesOf(await listed({ url: `${base}/a`, method: 'POST', caller: user.user_id }))).toEqual(['user-1', 'waiting']);
  });

  it('filters by status: pending, running, resolved, failed', async () => {
    expect(namesOf(await listed({ status: 'failed' }))).toEqual(['failed']);
    expect(namesOf(await listed({ status: 'running' }))).toEqual(['held']);
    expect(namesOf(await listed({ status: 'pending' }))).toEqual(['waiting']);
    expect(namesOf(await listed({ status: 'resolved' }))).toEqual(['alpha', 'beta', 'direct', 'streamed', 'user-1']);
  });

  it('filters by queue prefix, exact queue, excluded queue and stream', async () => {
    expect(namesOf(await listed({ queue: 'alpha' }))).toEqual(['alpha', 'user-1']);
    expect(namesOf(await listed({ queue: 'alpha-1', queue_exact: 'true' }))).toEqual(['alpha']);
    expect(namesOf(await listed({ queue: 'alpha', queue_exact: 'true' }))).toEqual([]);
    expect(namesOf(await listed({ queue_exclude: 'gated', caller: user.user_id }))).toEqual(['user-1']);
    expect(namesOf(await listed({ stream: 'true' }))).toEqual(['streamed']);
    expect(await listed({ stream: 'false' })).toHaveLength(7);
  });

  it('filters by a time range of creation, both ends inclusive', async () => {
    const items = await listed();
    const created = items.map((item) => item.created as number).sort((a, b) => a - b);
    const middle = created[3];
    const from = await listed({ from: String(middle) });
    expect(from.every((item) => item.created >= middle)).toBe(true);
    expect(from.length).toBe(created.filter((t) => t >= middle).length);
    const to = await listed({ to: String(middle) });
    expect(to.length).toBe(created.filter((t) => t <= middle).length);
    expect(await listed({ from: String(middle), to: String(middle) })).toHaveLength(created.filter((t) => t === middle).length);
  });

  it('pages with limit and startKey: every request once, in order', async () => {
    const seen: string[] = [];
    let startKey: string | null = null;
    let pages = 0;
    do {
      const res = await list({ limit: '2', ...(startKey ? { startKey } : {}) });
      expect(res.status, res.text).toBe(200);
      expect(res.json.list.length).toBeLessThanOrEqual(2);
      seen.push(...res.json.list.map((item: { id: string }) => item.id));
      startKey = res.json.endOfList ? null : res.json.startKey;
      pages += 1;
    } while (startKey !== null && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual((await listed()).map((item) => item.id));
  });

  it('compact items carry short texts instead of bodies', async () => {
    const item = (await listed({ compact: 'true', caller: user.user_id, status: 'resolved' }))[0];
    expect(item).toMatchObject({ compact: true, request_text: JSON.stringify({ n: 3 }) });
    expect(item).not.toHaveProperty('request_body');
  });
});

describe('one request in full', () => {
  it('shows url and headers as written with $CLIENT_SECRET, a typed credential redacted, the body, status code and timings, never the key', async () => {
    const res = await one(ids.direct);
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain(SECRET);
    expect(res.json).toMatchObject({
      id: ids.direct,
      method: 'POST',
      url: `${base}/direct?key=$CLIENT_SECRET`,
      status: 'resolved',
      status_code: 200,
      queue_name: null,
      request_body: { who: 'visitor' },
      request_headers: { 'x-key': 'Key $CLIENT_SECRET', authorization: '[redacted]' },
    });
    expect(res.json.caller).toMatch(/^visitor:/);
    expect(typeof res.json.created).toBe('number');
    expect(typeof res.json.executed).toBe('number');
    expect(typeof res.json.responded).toBe('number');
    // The destination echoed the key in its answer: the history keeps the token in its place.
    expect(res.json.response_body.headers['x-key']).toBe('Key $CLIENT_SECRET');
    expect(res.json.response_body.query).toBe('?key=$CLIENT_SECRET');
  });

  it('is found by its full id too, URL-encoded, and the full id it answers finds it again', async () => {
    const byPublic = (await one(ids['user-1'])).json;
    expect(byPublic.full_id).toBe(`POST:${ids['user-1']}:${base}/a`);
    const byFull = await one(byPublic.full_id);
    expect(byFull.status, byFull.text).toBe(200);
    expect(byFull.json).toEqual(byPublic);
    expect(byFull.json.caller).toBe(user.user_id);
  });

  it("shows a streamed request's text joined from its stored pieces", async () => {
    const res = await one(ids.streamed);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ stream: true, finalized: false, status: 'resolved', response_body: null });
    expect(res.json.stream_text).toEqual({ text: pieces.join(''), pieces: expect.any(Number), complete: true });
  });

  it('shows a failed request with its error', async () => {
    expect((await one(ids.failed)).json).toMatchObject({ status: 'failed', error: { code: 'REQUEST_FAILED' }, request_body: { n: 0 } });
  });

  it('shows a pending request as it waits, and an unknown or malformed id is refused', async () => {
    expect((await one(ids.waiting)).json).toMatchObject({ status: 'pending', caller: user.user_id });
    const missing = await one('0000000001:aaaaaaaaaaaaaaaa');
    expect(missing.status).toBe(404);
    const malformed = await one('not an id');
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe('INVALID_PARAMETER');
  });
});

describe('only the owner', () => {
  it("refuses a user's id token and a visitor, on the listing and on one request", async () => {
    for (const res of [await list({}, user.id_token), await one(ids.direct, user.id_token)]) {
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('INVALID_REQUEST');
      expect(res.text).not.toContain(ids.direct);
    }
    const anonymous = await call('GET', `/v1/projects/${project.service_id}/forward/requests`);
    expect(anonymous.status).toBe(401);
    const anonymousOne = await call('GET', `/v1/projects/${project.service_id}/forward/requests/${encodeURIComponent(ids.direct)}`);
    expect(anonymousOne.status).toBe(401);
  });

  it("does not see another project's requests", async () => {
    const other = await createProject();
    const res = await call('GET', `/v1/projects/${other.service_id}/forward/requests`, { token: other.owner_key });
    expect(res.json).toMatchObject({ list: [], endOfList: true });
    expect((await call('GET', `/v1/projects/${other.service_id}/forward/requests/${encodeURIComponent(ids.direct)}`, { token: other.owner_key })).status).toBe(
      404,
    );
  });
});

// Let the held request go, so nothing is left running when the file ends.
describe('cleanup', () => {
  it('opens the gate and the held requests settle', async () => {
    await loopback(`/gate/open/${gate}`);
    await eventually('both settled', async () => (await listed({ caller: user.user_id, status: 'resolved' })).length === 3);
  });
});
