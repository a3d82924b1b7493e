import { env } from 'cloudflare:workers';
import { SignJWT, exportJWK, generateKeyPair, type FetchImplementation } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { setJwksFetch } from '../../src/platform/identity';
import { loadProject, loadSecureRequestSettings } from '../../src/platform/projects';
import { registerTicket } from '../helpers/api';
import { call, mintUser, newProject, type TestProject } from './worker-api';

const ISSUER = 'https://idp.owner-settings.test';
const AUDIENCE = 'owner-client';
const JWKS_URL = `${ISSUER}/jwks.json`;
const KEY = 'sr-key-never-answered-7f3a';

const settings = (project: TestProject, body: unknown, token = project.owner_key) =>
  call('PATCH', `/v1/projects/${project.service_id}/settings`, { token, body });

const OWNER_VIEW_KEYS = [
  'active',
  'flood_limits',
  'identity',
  'name',
  'owner_id',
  'plan',
  'secure_request_destinations',
  'secure_request_key_set',
  'service_id',
];

describe("PATCH /v1/projects/{service_id}/settings: the owner changes its project's own settings", () => {
  afterEach(() => setJwksFetch(undefined));

  it('changes name, identity, the secureRequest key and Destinations, and answers them as GET /v1/owner does, never the key', async () => {
    const project = await newProject({ plan: 'standard' });
    const identity = { issuer: ISSUER, audience: AUDIENCE, jwks_url: JWKS_URL };
    const res = await settings(project, { name: 'Shop', identity, secure_request_key: KEY, secure_request_destinations: ['https://api.example/v1'] });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(OWNER_VIEW_KEYS);
    expect(res.json).toMatchObject({
      name: 'Shop',
      plan: 'standard',
      active: true,
      identity,
      secure_request_key_set: true,
      secure_request_destinations: ['https://api.example/v1'],
    });
    expect(res.text).not.toContain(KEY);
    const owner = await call('GET', '/v1/owner', { token: project.owner_key });
    expect(owner.json).toEqual(res.json);
    expect(owner.text).not.toContain(KEY);
    expect(await loadSecureRequestSettings(env, project.service_id)).toEqual({ key: KEY, destinations: ['https://api.example/v1'] });
  });

  it('leaves fields left out as they are, and removes the key, identity and Destinations with null', async () => {
    const project = await newProject();
    await settings(project, {
      name: 'Kept',
      identity: { issuer: ISSUER, audience: AUDIENCE, jwks_url: JWKS_URL },
      secure_request_key: KEY,
      secure_request_destinations: ['https://api.example/'],
    });
    const res = await settings(project, { identity: null, secure_request_key: null, secure_request_destinations: null });
    expect(res.json).toMatchObject({ name: 'Kept', identity: null, secure_request_key_set: false, secure_request_destinations: [] });
    expect(await loadSecureRequestSettings(env, project.service_id)).toEqual({ key: null, destinations: [] });
  });

  it('refuses plan and active as unknown fields saying the operator changes them, changing nothing', async () => {
    const project = await newProject();
    for (const body of [
      { name: 'x', plan: 'premium' },
      { name: 'x', active: false },
    ]) {
      const res = await settings(project, body);
      const field = 'plan' in body ? 'plan' : 'active';
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field } });
      expect(res.json.message).toMatch(/changed by the operator/);
    }
    expect(await loadProject(env, project.service_id)).toMatchObject({ name: '', plan: 'free', active: true });
  });

  it("refuses a project user's id token with 403 INVALID_REQUEST, and the operator token with 401, changing nothing", async () => {
    const project = await newProject();
    const user = await mintUser(project, { access_group: 99 });
    const asUser = await settings(project, { name: 'taken' }, user.id_token);
    expect(asUser.status).toBe(403);
    expect(asUser.json.code).toBe('INVALID_REQUEST');
    const asOperator = await settings(project, { name: 'taken' }, 'test-operator-token');
    expect(asOperator.status).toBe(401);
    expect((await loadProject(env, project.service_id))?.name).toBe('');
  });

  it("a consumption on /tpa verifies against the issuer the owner just set (the consume path's cache is forgotten)", async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
    const fetchJwks: FetchImplementation = async (url) => (url === JWKS_URL ? Response.json(jwks) : new Response('not found', { status: 404 }));
    setJwksFetch(fetchJwks);
    const project = await newProject();
    await registerTicket(project, 'signed-in', { actions: [] });
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('ext-1')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const consume = () => call('POST', `/tpa/${project.service_id}/signed-in`, { token, body: {} });

    // Read once without an issuer: the consume path now holds the project (identity null) in its cache.
    expect((await consume()).json).toMatchObject({ code: 'AUTH_REQUIRED' });
    expect((await settings(project, { identity: { issuer: ISSUER, audience: AUDIENCE, jwks_url: JWKS_URL } })).status).toBe(200);
    const res = await consume();
    expect(res.status, res.text).toBe(200);
    expect(res.json.tkid).toMatch(/#ext-1$/);
  });
});
