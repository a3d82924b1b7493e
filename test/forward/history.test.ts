/**
 * forwardRequestHistory lists the caller's own requests to one url and method, newest first, filtered by
 * queue prefix / queue_exact / queue_exclude and status, compact on request, paged by startKey; requests
 * made with the older clientSecretName are listed too; another caller sees none of them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { eventually, forward, heldAtGate, history, loopback, origin, settledEnvelope } from './support';

let project: TestProject;
const url = `${origin}/echo/history`;
const ids: Record<string, string> = {};

/** A queued request to `url`, settled. */
async function queued(name: string, queue: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await forward(project, { url, method: 'POST', queue, data: { name }, ...extra });
  expect(res.status, res.text).toBe(200);
  ids[name] = res.json.id;
  await settledEnvelope(project, { id: res.json.id, url, method: 'POST' });
}

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'hist-key', 'sk_hist_1');
  await putSecret(project, 'doomed', 'sk_doomed_1');
  await queued('alpha-1', 'alpha-1');
  await queued('alpha-2', 'alpha-2');
  await queued('beta', 'beta');
  await queued('older-name', 'beta', { clientSecretName: 'hist-key', headers: { 'x-key': '$CLIENT_SECRET' } });
  const direct = await forward(project, { url, method: 'POST', data: { name: 'direct' } });
  ids.direct = direct.headers.get('x-svc-request-id')!;
  // A failed one: its key is deleted while it waits behind a held request.
  const gate = crypto.randomUUID();
  await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'GET', queue: 'gamma' });
  const doomed = await forward(project, {
    url,
    method: 'POST',
    queue: 'gamma',
    data: { name: 'failed' },
    secretName: 'doomed',
    headers: { 'x-key': '$CLIENT_SECRET' },
  });
  ids.failed = doomed.json.id;
  await heldAtGate(gate);
  await call('DELETE', `/v1/projects/${project.service_id}/secrets/doomed`, { token: project.owner_key });
  await loopback(`/gate/open/${gate}`);
  await settledEnvelope(project, { id: ids.failed, url, method: 'POST' });
  await eventually('every request is in the history', async () => (await history(project, { url, method: 'POST' })).json.list.length === 6);
});

const listed = async (query: Record<string, string> = {}) => {
  const res = await history(project, { url, method: 'POST', ...query });
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const namesOf = (list: { id: string }[]) => list.map((item) => Object.keys(ids).find((name) => ids[name] === item.id));

describe('history', () => {
  it('lists every request newest first with its stated fields, clientSecretName requests included', async () => {
    const { list, endOfList } = await listed();
    expect(endOfList).toBe(true);
    expect(namesOf(list).sort()).toEqual(['alpha-1', 'alpha-2', 'beta', 'direct', 'failed', 'older-name']);
    const created = list.map((item: { created: number }) => item.created);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const beta = list.find((item: { id: string }) => item.id === ids.beta);
    expect(beta).toMatchObject({ status: 'resolved', queue_name: 'beta', method: 'POST', url, status_code: 200, request_body: { name: 'beta' } });
    expect(beta.response_body).toMatchObject({ method: 'POST', path: '/echo/history' });
    for (const field of ['created', 'updated', 'executed', 'responded']) expect(typeof beta[field], field).toBe('number');
    expect(list.find((item: { id: string }) => item.id === ids.direct)).toMatchObject({ queue_name: null, status: 'resolved' });
  });

  it('filters by queue prefix, exact queue, excluded queue and status', async () => {
    expect(namesOf((await listed({ queue: 'alpha' })).list).sort()).toEqual(['alpha-1', 'alpha-2']);
    expect(namesOf((await listed({ queue: 'alpha-1', queue_exact: 'true' })).list)).toEqual(['alpha-1']);
    expect(namesOf((await listed({ queue: 'alph', queue_exact: 'true' })).list)).toEqual([]);
    expect(namesOf((await listed({ queue_exclude: 'beta' })).list).sort()).toEqual(['alpha-1', 'alpha-2', 'direct', 'failed']);
    const failed = (await listed({ status: 'failed' })).list;
    expect(namesOf(failed)).toEqual(['failed']);
    expect(failed[0]).toMatchObject({ status: 'failed', error: { code: 'INVALID_REQUEST', message: 'No client secret is named "doomed".' } });
    expect(namesOf((await listed({ status: 'resolved', queue: 'beta' })).list).sort()).toEqual(['beta', 'older-name']);
  });

  it('compact items carry request_text, response_text and response_complete_marker instead of bodies', async () => {
    const { list } = await listed({ compact: 'true', queue: 'beta', queue_exact: 'true' });
    for (const item of list) {
      expect(item).not.toHaveProperty('request_body');
      expect(item).not.toHaveProperty('response_body');
      expect(item.compact).toBe(true);
      expect(item.request_text).toMatch(/^\{"name":/);
      // The echo is longer than a compact item shows: cut, and marked so.
      expect(item.response_text).toHaveLength(200);
      expect(item.response_complete_marker).toBe(false);
    }
    const short = `${origin}/seq/${crypto.randomUUID()}/1`;
    const res = await forward(project, { url: short, method: 'GET', queue: 'short' });
    await settledEnvelope(project, { id: res.json.id, url: short, method: 'GET' });
    await eventually('listed', async () => (await history(project, { url: short, method: 'GET' })).json.list.length === 1);
    const [item] = (await history(project, { url: short, method: 'GET', compact: 'true' })).json.list;
    expect(item).toMatchObject({ compact: true, request_text: '', response_text: '{"n":1}', response_complete_marker: true });
  });

  it('pages by startKey with limit: every request exactly once, newest first', async () => {
    const all = (await listed()).list.map((item: { id: string }) => item.id);
    const paged: string[] = [];
    let startKey: string | null = null;
    let pages = 0;
    do {
      const page: any = await listed({ limit: '2', ...(startKey ? { startKey } : {}) });
      paged.push(...page.list.map((item: { id: string }) => item.id));
      startKey = page.startKey;
      expect(page.endOfList).toBe(startKey === null);
      pages += 1;
    } while (startKey);
    expect(paged).toEqual(all);
    expect(pages).toBe(3);
  });

  it('another caller sees nothing', async () => {
    const res = await history(project, { url, method: 'POST' }, { headers: { 'cf-connecting-ip': '198.51.100.77', 'user-agent': 'someone else' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ list: [], startKey: null, endOfList: true });
  });
});
