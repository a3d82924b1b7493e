import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createRouter, renderError } from '../app';
import { signDevIdToken } from '../platform/identity';
import { createProject, updateProject } from '../platform/projects';
import { upsertDevUser } from '../platform/users';
import { PROJECT_PATH, guard } from './guards';

/** A router with one route per audience; each answers who the guard let in, and for which project. */
const router = createRouter();
router.get(`${PROJECT_PATH}/owner`, guard('owner', 'owner refusal'), (c) => c.json({ caller: c.get('caller').kind, service_id: c.get('project').service_id }));
router.get(`${PROJECT_PATH}/user`, guard('user', 'user refusal'), (c) => c.json({ caller: c.get('caller').kind, service_id: c.get('project').service_id }));
router.get(`${PROJECT_PATH}/visitor`, guard('visitor'), (c) => c.json({ caller: c.get('caller').kind, service_id: c.get('project').service_id }));
router.onError((err) => renderError(err));

async function call(serviceId: string, audience: string, authorization?: string) {
  const res = await router.request(`/v1/projects/${serviceId}/${audience}`, { headers: authorization ? { authorization } : {} }, env);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function project() {
  const created = await createProject(env, {});
  const user = await upsertDevUser(env, created.service_id, { user_id: crypto.randomUUID() });
  const idToken = await signDevIdToken(env, created.service_id, user);
  return { ...created, owner: `Bearer ${created.owner_key}`, user: `Bearer ${idToken}` };
}

describe('the project route guard', () => {
  it("'owner' lets in the owner key only: no credential 401 UNAUTHORIZED, a signed-in user 403 INVALID_REQUEST with the route's refusal", async () => {
    const p = await project();
    expect(await call(p.service_id, 'owner', p.owner)).toEqual({ status: 200, json: { caller: 'owner', service_id: p.service_id } });
    expect(await call(p.service_id, 'owner')).toMatchObject({ status: 401, json: { code: 'UNAUTHORIZED' } });
    expect(await call(p.service_id, 'owner', 'Bearer ok_wrong')).toMatchObject({ status: 401, json: { code: 'UNAUTHORIZED', message: 'Invalid owner key.' } });
    expect(await call(p.service_id, 'owner', p.user)).toEqual({ status: 403, json: { code: 'INVALID_REQUEST', message: 'owner refusal' } });
  });

  it("'user' lets in the owner and signed-in users; no credential is 401 UNAUTHORIZED with the route's refusal", async () => {
    const p = await project();
    expect(await call(p.service_id, 'user', p.owner)).toMatchObject({ status: 200, json: { caller: 'owner' } });
    expect(await call(p.service_id, 'user', p.user)).toMatchObject({ status: 200, json: { caller: 'user' } });
    expect(await call(p.service_id, 'user')).toEqual({ status: 401, json: { code: 'UNAUTHORIZED', message: 'user refusal' } });
    expect(await call(p.service_id, 'user', 'Bearer ok_wrong')).toMatchObject({ status: 401, json: { code: 'AUTH_REQUIRED' } });
  });

  it("'visitor' lets anyone in, anonymous included, but still refuses a credential that does not verify (401 AUTH_REQUIRED)", async () => {
    const p = await project();
    expect(await call(p.service_id, 'visitor')).toMatchObject({ status: 200, json: { caller: 'anonymous' } });
    expect(await call(p.service_id, 'visitor', p.owner)).toMatchObject({ status: 200, json: { caller: 'owner' } });
    expect(await call(p.service_id, 'visitor', p.user)).toMatchObject({ status: 200, json: { caller: 'user' } });
    for (const authorization of ['Bearer ok_wrong', 'Bearer nonsense']) {
      expect(await call(p.service_id, 'visitor', authorization)).toMatchObject({ status: 401, json: { code: 'AUTH_REQUIRED' } });
    }
  });

  it('refuses an unknown project (INVALID_SERVICE) and an inactive one (SERVICE_DISABLED) before it reads the credential', async () => {
    const p = await project();
    await updateProject(env, p.service_id, { active: false });
    for (const audience of ['owner', 'user', 'visitor']) {
      for (const authorization of [undefined, p.owner, 'Bearer nonsense']) {
        expect(await call('zzzzzzzzzzzzzzzzzzzz', audience, authorization)).toMatchObject({ status: 400, json: { code: 'INVALID_SERVICE' } });
        expect(await call(p.service_id, audience, authorization)).toMatchObject({ status: 400, json: { code: 'SERVICE_DISABLED' } });
      }
    }
  });
});
