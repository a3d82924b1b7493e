/**
 * svcHeaders makes the service write the verified caller's identity: x-svc-user (left out for a visitor and
 * for the owner key) and x-svc-service; true asks for both, { user } / { service } for one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { forward, origin, settledEnvelope } from './support';

let project: TestProject;
let user: { user_id: string; id_token: string };
beforeAll(async () => {
  project = await createProject();
  user = await mintUser(project, {});
});

/** The x-svc-* headers the destination received for a direct request sent with these options, but the hop marker every call carries. */
async function identitySent(svcHeaders: unknown, token?: string): Promise<Record<string, string>> {
  const res = await forward(project, { url: `${origin}/echo/identity`, method: 'GET', svcHeaders }, token ? { token } : {});
  expect(res.status, res.text).toBe(200);
  expect(res.json.headers['x-svc-hop']).toBe('1');
  return Object.fromEntries(Object.entries(res.json.headers as Record<string, string>).filter(([name]) => name.startsWith('x-svc-') && name !== 'x-svc-hop'));
}

describe('identity headers', () => {
  it('true sends x-svc-user and x-svc-service for a signed-in user', async () => {
    expect(await identitySent(true, user.id_token)).toEqual({ 'x-svc-user': user.user_id, 'x-svc-service': project.service_id });
  });

  it('{ user } sends only x-svc-user; { service } only x-svc-service', async () => {
    expect(await identitySent({ user: true }, user.id_token)).toEqual({ 'x-svc-user': user.user_id });
    expect(await identitySent({ service: true }, user.id_token)).toEqual({ 'x-svc-service': project.service_id });
  });

  it('false or absent sends neither', async () => {
    expect(await identitySent(false, user.id_token)).toEqual({});
    expect(await identitySent(undefined, user.id_token)).toEqual({});
  });

  it('a visitor and the owner key get no x-svc-user, even with true', async () => {
    expect(await identitySent(true)).toEqual({ 'x-svc-service': project.service_id });
    expect(await identitySent({ user: true })).toEqual({});
    expect(await identitySent(true, project.owner_key)).toEqual({ 'x-svc-service': project.service_id });
  });

  it('a queued request carries the identity of the caller who dispatched it', async () => {
    const url = `${origin}/echo/identity-queued`;
    const res = await forward(project, { url, method: 'GET', queue: 'who', svcHeaders: true }, { token: user.id_token });
    const done = await settledEnvelope(project, { id: res.json.id, url, method: 'GET' }, { token: user.id_token });
    expect(done.response_body.headers).toMatchObject({ 'x-svc-user': user.user_id, 'x-svc-service': project.service_id });
  });
});
