/**
 * The event inspector's search of the owner's forwarding history (issue 37 item 4, extension):
 * GET …/forward/events filters every caller's requests by status class, error code, destination and a
 * value in the request body or headers as the caller sent them; the history keeps the $CLIENT_SECRET
 * placeholder, so a Secret Key's value is never found nor answered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { eventually, forward, origin, type As } from './support';

const SECRET = 'sk-search-never-found-9Kd';
let project: TestProject;
const visitor: As = { headers: { 'user-agent': 'forward-search-visitor' } };
const ids: Record<string, string> = {};

const search = (query: Record<string, string>) =>
  call('GET', `/v1/projects/${project.service_id}/forward/events?${new URLSearchParams(query)}`, { token: project.owner_key });
async function found(query: Record<string, string>): Promise<string[]> {
  const res = await search(query);
  expect(res.status, res.text).toBe(200);
  expect(res.text).not.toContain(SECRET);
  return (res.json.list as { id: string }[]).map((item) => Object.keys(ids).find((name) => ids[name] === item.id) ?? item.id).sort();
}

/** A direct request (its answer's status is the destination's or the refusal's: what the history keeps is checked below). */
async function direct(name: string, body: Record<string, unknown>): Promise<void> {
  const res = await forward(project, { method: 'POST', ...body }, visitor);
  expect(res.status, res.text).not.toBe(400);
  ids[name] = res.headers.get('x-svc-request-id') ?? '';
}

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'search-key', SECRET);
  await direct('paid', {
    url: `${origin}/echo/search/paid`,
    secretName: 'search-key',
    headers: { 'x-key': '$CLIENT_SECRET', 'X-Delivery': 'd-1' },
    data: { data: { object: { id: 'pi_123' } }, n: 7, ok: true },
  });
  await direct('missing', {
    url: `${origin}/status/404`,
    headers: { 'x-delivery': 'd-2' },
    data: { data: { object: { id: 'pi_456' } }, items: [{ sku: 'a' }] },
  });
  await direct('broken', { url: `${origin}/status/503`, data: { n: 8 } });
  await direct('unreached', { url: 'http://127.0.0.1:9/', data: { n: 9 } });
  await eventually('every request reached the history', async () => (await found({})).length === 4);
  ids.unreached = (
    await call('GET', `/v1/projects/${project.service_id}/forward/requests?url=${encodeURIComponent('http://127.0.0.1:9/')}`, { token: project.owner_key })
  ).json.list[0].id;
});

describe('the search of the forwarding history', () => {
  it('filters by the status class of the answer, none for a request that got no answer', async () => {
    expect(await found({ status_class: '2xx' })).toEqual(['paid']);
    expect(await found({ status_class: '4xx' })).toEqual(['missing']);
    expect(await found({ status_class: '5xx' })).toEqual(['broken']);
    expect(await found({ status_class: 'none' })).toEqual(['unreached']);
  });

  it('filters by error code and by destination origin', async () => {
    expect(await found({ error_code: 'REQUEST_FAILED' })).toEqual(['unreached']);
    expect(await found({ destination: 'http://127.0.0.1:9' })).toEqual(['unreached']);
    expect(await found({ destination: origin })).toEqual(['broken', 'missing', 'paid']);
    // An origin is matched whole: a longer port is another destination.
    expect(await found({ destination: 'http://127.0.0.1:90' })).toEqual([]);
  });

  it('finds a body value as text (strings, numbers and booleans) and by array index', async () => {
    expect(await found({ where: 'body.data.object.id', equals: 'pi_123' })).toEqual(['paid']);
    expect(await found({ where: 'body.n', equals: '8' })).toEqual(['broken']);
    expect(await found({ where: 'body.ok', equals: 'true' })).toEqual(['paid']);
    expect(await found({ where: 'body.items.0.sku', equals: 'a' })).toEqual(['missing']);
    expect(await found({ where: 'body.data.object.id', equals: 'pi_999' })).toEqual([]);
  });

  it('finds a header value by its name in any case, and never by the Secret Key value it carried', async () => {
    expect(await found({ where: 'headers.x-delivery', equals: 'd-1' })).toEqual(['paid']);
    expect(await found({ where: 'headers.X-DELIVERY', equals: 'd-2' })).toEqual(['missing']);
    expect(await found({ where: 'headers.x-key', equals: SECRET })).toEqual([]);
    expect(await found({ where: 'headers.x-key', equals: '$CLIENT_SECRET' })).toEqual(['paid']);
  });

  it('pages the matches by cursor', async () => {
    const first = await search({ destination: origin, limit: '2' });
    expect(first.json.list).toHaveLength(2);
    const second = await search({ destination: origin, limit: '2', startKey: first.json.startKey });
    expect(second.json.list).toHaveLength(1);
    expect(second.json.endOfList).toBe(true);
  });
});
