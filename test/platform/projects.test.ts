import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { loadActiveProject, loadProject, loadSecureRequestSettings } from '../../src/platform/projects';
import { OPERATOR_TOKEN, call, callWithEnv, newProject, patchProject } from './worker-api';

describe('projects (operator routes)', () => {
  it('creates a project with a 20-character lowercase id, a UUID owner id and an ok_ owner key', async () => {
    const res = await call('POST', '/v1/projects', { token: OPERATOR_TOKEN, body: { name: 'Shop', plan: 'standard' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(['owner_id', 'owner_key', 'service_id']);
    expect(res.json.service_id).toMatch(/^[a-z0-9]{20}$/);
    expect(res.json.owner_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.json.owner_key).toMatch(/^ok_[A-Za-z0-9_-]{43}$/);
    const project = await loadProject(env, res.json.service_id);
    expect(project).toMatchObject({ name: 'Shop', plan: 'standard', active: true, identity: null, owner_id: res.json.owner_id });
  });

  it('creates a project without a body (free plan, empty name)', async () => {
    const res = await call('POST', '/v1/projects', { token: OPERATOR_TOKEN });
    expect(res.status).toBe(201);
    expect(await loadProject(env, res.json.service_id)).toMatchObject({ name: '', plan: 'free', active: true });
  });

  it('stores the owner key only as its SHA-256 hash and the built-in private key only encrypted', async () => {
    const created = await newProject();
    const row = await env.DB.prepare('SELECT * FROM projects WHERE service_id = ?').bind(created.service_id).first<Record<string, string>>();
    expect(JSON.stringify(row)).not.toContain(created.owner_key);
    expect(row!.owner_key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.dev_private_jwk_enc).toMatch(/^v1\./);
    expect(row!.dev_private_jwk_enc).not.toContain('"d"');
    expect(JSON.parse(row!.dev_public_jwk)).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(JSON.parse(row!.dev_public_jwk)).not.toHaveProperty('d');
  });

  it('refuses project creation without the operator token (401 UNAUTHORIZED)', async () => {
    const res = await call('POST', '/v1/projects', { body: {} });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
  });

  it('refuses project creation with a wrong operator token (401 UNAUTHORIZED)', async () => {
    for (const token of ['test-operator-tokeN', 'test-operator-token-and-more', 'x']) {
      const res = await call('POST', '/v1/projects', { token, body: {} });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses a project change with a wrong operator token, changing nothing', async () => {
    const created = await newProject();
    const res = await call('PATCH', `/v1/projects/${created.service_id}`, { token: created.owner_key, body: { active: false } });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
    expect((await loadProject(env, created.service_id))?.active).toBe(true);
  });

  it('answers INTERNAL_ERROR 500 naming the setting when OPERATOR_TOKEN is not configured', async () => {
    const res = await callWithEnv({ OPERATOR_TOKEN: undefined }, 'POST', '/v1/projects', { token: OPERATOR_TOKEN });
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(res.json.message).toContain('OPERATOR_TOKEN');
  });

  it('changes active, plan, name and identity and answers the project without any key', async () => {
    const created = await newProject();
    const identity = { issuer: 'https://idp.example', audience: 'app', jwks_url: 'https://idp.example/jwks' };
    const res = await patchProject(created.service_id, { active: false, plan: 'premium', name: 'Renamed', identity, secure_request_key: 'srk-secret-1' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      service_id: created.service_id,
      owner_id: created.owner_id,
      active: false,
      plan: 'premium',
      name: 'Renamed',
      identity,
      secure_request_key_set: true,
    });
    expect(res.text).not.toContain('srk-secret-1');
    expect(res.text).not.toContain(created.owner_key);
    expect(Object.keys(res.json).sort()).toEqual([
      'active',
      'created',
      'flood_limits',
      'identity',
      'name',
      'owner_id',
      'plan',
      'secure_request_destinations',
      'secure_request_key_set',
      'service_id',
      'updated',
    ]);
  });

  it('leaves fields out of a change as they are', async () => {
    const created = await newProject({ plan: 'standard', name: 'Keep' });
    const res = await patchProject(created.service_id, { active: false });
    expect(res.json).toMatchObject({ plan: 'standard', name: 'Keep', active: false });
  });

  it('stores the secureRequest key encrypted and clears it with null', async () => {
    const created = await newProject();
    await patchProject(created.service_id, { secure_request_key: 'srk-value-42' });
    const row = await env.DB.prepare('SELECT secure_request_key_enc FROM projects WHERE service_id = ?')
      .bind(created.service_id)
      .first<{ secure_request_key_enc: string }>();
    expect(row!.secure_request_key_enc).not.toContain('srk-value-42');
    expect((await loadSecureRequestSettings(env, created.service_id)).key).toBe('srk-value-42');
    const cleared = await patchProject(created.service_id, { secure_request_key: null });
    expect(cleared.json.secure_request_key_set).toBe(false);
    expect((await loadSecureRequestSettings(env, created.service_id)).key).toBeNull();
  });

  it('removes the external identity issuer with identity null', async () => {
    const created = await newProject();
    await patchProject(created.service_id, { identity: { issuer: 'https://idp.example', audience: 'a', jwks_url: 'https://idp.example/k' } });
    const res = await patchProject(created.service_id, { identity: null });
    expect(res.json.identity).toBeNull();
  });

  it('answers a change of an unknown project with INVALID_SERVICE (400)', async () => {
    for (const serviceId of ['aaaaaaaaaaaaaaaaaaaa', 'not-a-service-id']) {
      const res = await patchProject(serviceId, { active: false });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('INVALID_SERVICE');
    }
  });

  it('lets the operator enable a disabled project again', async () => {
    const created = await newProject();
    await patchProject(created.service_id, { active: false });
    const res = await patchProject(created.service_id, { active: true });
    expect(res.status).toBe(200);
    expect((await loadActiveProject(env, created.service_id)).active).toBe(true);
  });
});

describe('loadActiveProject', () => {
  it('throws INVALID_SERVICE for an unknown project', async () => {
    await expect(loadActiveProject(env, 'zzzzzzzzzzzzzzzzzzzz')).rejects.toMatchObject({ code: 'INVALID_SERVICE', status: 400 });
  });

  it('throws SERVICE_DISABLED for an inactive project', async () => {
    const created = await newProject();
    await patchProject(created.service_id, { active: false });
    await expect(loadActiveProject(env, created.service_id)).rejects.toMatchObject({ code: 'SERVICE_DISABLED', status: 400 });
  });
});

describe('project routes refuse unknown and disabled projects', () => {
  const ownerRoutes = (sid: string): Array<[string, string, unknown?]> => [
    ['GET', `/v1/projects/${sid}/secrets`],
    ['PUT', `/v1/projects/${sid}/secrets/API_KEY`, { value: 'v' }],
    ['DELETE', `/v1/projects/${sid}/secrets/API_KEY`],
    ['GET', `/v1/projects/${sid}/mail-templates`],
    ['PUT', `/v1/projects/${sid}/mail-templates/welcome`, { subject: 's' }],
    ['GET', `/v1/projects/${sid}/newsletters`],
    ['PUT', `/v1/projects/${sid}/newsletters/public/m1`, { subject: 's' }],
    ['POST', `/v1/projects/${sid}/dev/users`, {}],
  ];

  it('answers SERVICE_DISABLED (400) on every owner route of an inactive project, even with the owner key', async () => {
    const created = await newProject();
    await patchProject(created.service_id, { active: false });
    for (const [method, path, body] of ownerRoutes(created.service_id)) {
      const res = await call(method, path, { token: created.owner_key, body });
      expect([path, res.status, res.json.code]).toEqual([path, 400, 'SERVICE_DISABLED']);
    }
  });

  it('answers INVALID_SERVICE (400) on every owner route of an unknown project', async () => {
    const created = await newProject();
    for (const [method, path, body] of ownerRoutes('qqqqqqqqqqqqqqqqqqqq')) {
      const res = await call(method, path, { token: created.owner_key, body });
      expect([path, res.status, res.json.code]).toEqual([path, 400, 'INVALID_SERVICE']);
    }
  });
});
