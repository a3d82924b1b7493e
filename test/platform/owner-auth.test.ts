import { describe, expect, it } from 'vitest';
import { call, mintUser, newProject } from './worker-api';

describe('owner routes authenticate the owner key', () => {
  it('lets the owner key in, bare or with the Bearer scheme', async () => {
    const project = await newProject();
    for (const authorization of [`Bearer ${project.owner_key}`, project.owner_key]) {
      const res = await call('GET', `/v1/projects/${project.service_id}/secrets`, { authorization });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ list: [] });
    }
  });

  it('refuses a missing credential with 401 UNAUTHORIZED', async () => {
    const project = await newProject();
    for (const authorization of [undefined, '', 'Bearer', 'Bearer   ']) {
      const res = await call('GET', `/v1/projects/${project.service_id}/secrets`, { authorization });
      expect([authorization, res.status, res.json.code]).toEqual([authorization, 401, 'UNAUTHORIZED']);
    }
  });

  it("refuses a wrong owner key, including another project's, with 401 UNAUTHORIZED", async () => {
    const project = await newProject();
    const other = await newProject();
    for (const token of [other.owner_key, `${project.owner_key}x`, project.owner_key.slice(0, -1), 'ok_']) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token, body: { value: 'v' } });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid owner key.' });
    }
  });

  it('refuses the operator token on owner routes', async () => {
    const project = await newProject();
    const res = await call('GET', `/v1/projects/${project.service_id}/secrets`, { token: 'test-operator-token' });
    expect(res.status).toBe(401);
  });

  it('refuses a signed-in user, an admin (access group 99) included, with 403 INVALID_REQUEST', async () => {
    const project = await newProject();
    for (const access_group of [1, 99]) {
      const { id_token } = await mintUser(project, { access_group });
      const res = await call('GET', `/v1/projects/${project.service_id}/secrets`, { token: id_token });
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('INVALID_REQUEST');
    }
  });

  it('refuses a tampered or malformed id token with 401 AUTH_REQUIRED', async () => {
    const project = await newProject();
    const { id_token } = await mintUser(project);
    const [header, , signature] = id_token.split('.');
    const otherPayload = btoa(JSON.stringify({ sub: 'someone-else', aud: project.service_id, iss: `svc-dev:${project.service_id}`, exp: 9999999999 })).replace(
      /=+$/,
      '',
    );
    for (const token of [`${header}.${otherPayload}.${signature}`, `${id_token}x`, 'not-a-token']) {
      const res = await call('GET', `/v1/projects/${project.service_id}/secrets`, { token });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('AUTH_REQUIRED');
    }
  });
});
