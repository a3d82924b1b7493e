import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, type TestProject } from '../helpers/api';

let project: TestProject;
let base: string;

beforeAll(async () => {
  project = await createProject();
  base = `/v1/projects/${project.service_id}/subscribers`;
});

const owner = (method: string, path: string, body?: unknown) => call(method, `${base}${path}`, { token: project.owner_key, body });

describe('owner subscriber routes (the recipients of nlsd)', () => {
  it('PUT subscribes an address to a group, trimmed and in lower case; a repeat keeps its created time', async () => {
    const first = await owner('PUT', '/vip/Ann.Lee@Example.COM');
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ group: 'vip', email: 'ann.lee@example.com', created: expect.any(Number) });
    const again = await owner('PUT', '/vip/ann.lee@example.com');
    expect(again.json.created).toBe(first.json.created);
  });

  it('PUT may name the project user the subscriber is; an unknown user is INVALID_PARAMETER', async () => {
    const user = await mintUser(project);
    expect((await owner('PUT', '/7/u@example.com', { user_id: user.user_id })).json).toMatchObject({ group: 7, user_id: user.user_id });
    const unknown = await owner('PUT', '/7/v@example.com', { user_id: crypto.randomUUID() });
    expect([unknown.status, unknown.json.code, unknown.json.detail]).toEqual([400, 'INVALID_PARAMETER', { field: 'user_id' }]);
  });

  it('refuses an invalid address or group with INVALID_PARAMETER naming the field', async () => {
    for (const [path, field] of [
      ['/vip/not-an-address', 'email'],
      ['/vip/a@b', 'email'],
      ['/1/a@b.co', 'group'],
      ['/100/a@b.co', 'group'],
      ['/a.b/a@b.co', 'group'],
    ]) {
      const res = await owner('PUT', path);
      expect([path, res.status, res.json.code, res.json.detail]).toEqual([path, 400, 'INVALID_PARAMETER', { field }]);
    }
  });

  it('GET lists the subscribers of a group in address order, paged by startKey', async () => {
    for (const name of ['c', 'a', 'e', 'b', 'd']) await owner('PUT', `/pages/${name}@example.com`);
    await owner('PUT', '/other/z@example.com');
    const first = await owner('GET', '/pages?limit=2');
    expect(first.json.list.map((s: { email: string }) => s.email)).toEqual(['a@example.com', 'b@example.com']);
    expect(first.json.endOfList).toBe(false);
    const second = await owner('GET', `/pages?limit=2&startKey=${first.json.startKey}`);
    const third = await owner('GET', `/pages?limit=2&startKey=${second.json.startKey}`);
    expect(second.json.list.map((s: { email: string }) => s.email)).toEqual(['c@example.com', 'd@example.com']);
    expect([third.json.list.map((s: { email: string }) => s.email), third.json.startKey, third.json.endOfList]).toEqual([['e@example.com'], null, true]);
  });

  it('DELETE unsubscribes; an address that is not subscribed is 404 NOT_FOUND', async () => {
    await owner('PUT', '/leaving/bye@example.com');
    expect((await owner('DELETE', '/leaving/BYE@example.com')).json).toEqual({ deleted: true });
    const gone = await owner('DELETE', '/leaving/bye@example.com');
    expect([gone.status, gone.json.code]).toEqual([404, 'NOT_FOUND']);
    expect((await owner('GET', '/leaving')).json.list).toEqual([]);
  });

  it('is for the owner key only: no credential is 401, a signed-in user 403', async () => {
    expect((await call('GET', `${base}/vip`)).status).toBe(401);
    const user = await mintUser(project);
    const res = await call('PUT', `${base}/vip/x@example.com`, { token: user.id_token });
    expect([res.status, res.json.code]).toEqual([403, 'INVALID_REQUEST']);
  });
});
