import { env } from 'cloudflare:workers';
import { CompactSign, SignJWT, exportJWK, generateKeyPair, type FetchImplementation } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveCaller } from '../../src/http/auth';
import { userReferenceView } from '../../src/platform/claims';
import { CLOCK_TOLERANCE_SECONDS, setJwksFetch, signDevIdToken, verifyIdToken } from '../../src/platform/identity';
import { loadActiveProject } from '../../src/platform/projects';
import { loadUser, setUserAccessGroup } from '../../src/platform/users';
import { call, callWithEnv, mintUser, newProject, patchProject } from './worker-api';

const nowSeconds = () => Math.floor(Date.now() / 1000);

const base64UrlJson = (part: string) => JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
const toBase64UrlJson = (value: unknown) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** Rewrites a claim of a signed token and keeps the old signature. */
function tamper(token: string, claims: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  return [header, toBase64UrlJson({ ...base64UrlJson(payload), ...claims }), signature].join('.');
}

describe('dev user minting (built-in issuer)', () => {
  it('mints a user and an id token with sub = user_id, aud = service_id, iss = svc-dev:{service_id}, 24 h lifetime', async () => {
    const project = await newProject();
    const { user_id, id_token } = await mintUser(project, { email: 'ann@example.com', attributes: { name: 'Ann', plan: 'gold' }, access_group: 7 });
    expect(user_id).toMatch(/^[0-9a-f-]{36}$/);
    const [header, payload] = id_token.split('.').slice(0, 2).map(base64UrlJson);
    expect(header.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: user_id, aud: project.service_id, iss: `svc-dev:${project.service_id}`, email: 'ann@example.com', name: 'Ann' });
    expect(payload.exp - payload.iat).toBe(24 * 3600);
    expect(await loadUser(env, project.service_id, user_id)).toEqual({
      user_id,
      email: 'ann@example.com',
      access_group: 7,
      attributes: { name: 'Ann', plan: 'gold' },
    });
  });

  it('gives a new dev user access group 1 by default and upserts a given user_id, keeping fields left out', async () => {
    const project = await newProject();
    const userId = crypto.randomUUID();
    await mintUser(project, { user_id: userId, email: 'bo@example.com' });
    expect((await loadUser(env, project.service_id, userId))?.access_group).toBe(1);
    await mintUser(project, { user_id: userId, access_group: 99 });
    expect(await loadUser(env, project.service_id, userId)).toMatchObject({ email: 'bo@example.com', access_group: 99 });
  });

  it('answers the minting route with 404 NOT_FOUND when DEV_IDENTITY is not true', async () => {
    const project = await newProject();
    const res = await callWithEnv({ DEV_IDENTITY: 'false' }, 'POST', `/v1/projects/${project.service_id}/dev/users`, { token: project.owner_key, body: {} });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('NOT_FOUND');
  });

  it('lets only the owner mint dev users', async () => {
    const project = await newProject();
    const { id_token } = await mintUser(project);
    const asUser = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { token: id_token, body: {} });
    expect(asUser.status).toBe(403);
    const anonymous = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { body: {} });
    expect(anonymous.status).toBe(401);
  });

  it('refuses a dev user body with an out-of-range access group, a non-UUID user id or a reserved attribute name', async () => {
    const project = await newProject();
    for (const [body, field] of [
      [{ access_group: 0 }, 'access_group'],
      [{ access_group: 100 }, 'access_group'],
      [{ access_group: 1.5 }, 'access_group'],
      [{ user_id: 'bob' }, 'user_id'],
      [{ email: 'not-an-email' }, 'email'],
      [{ attributes: { access_group: 99 } }, 'attributes'],
      [{ attributes: { sub: 'x' } }, 'attributes'],
      [{ attributes: [] }, 'attributes'],
    ] as const) {
      const res = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { token: project.owner_key, body });
      expect([field, res.status, res.json.code]).toEqual([field, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain(field);
    }
  });
});

describe('id token verification', () => {
  it('accepts a minted token and returns the stored user (server-side access group, attributes)', async () => {
    const project = await newProject();
    const { user_id, id_token } = await mintUser(project, { email: 'cy@example.com', attributes: { tier: 'pro' }, access_group: 5 });
    const user = await verifyIdToken(env, await loadActiveProject(env, project.service_id), id_token);
    expect(user).toEqual({ user_id, email: 'cy@example.com', access_group: 5, attributes: { tier: 'pro' } });
    expect(userReferenceView(user)).toEqual({ tier: 'pro', user_id, email: 'cy@example.com', access_group: 5 });
  });

  it('reads the access group from the server, so a later change applies to tokens already issued', async () => {
    const project = await newProject();
    const { user_id, id_token } = await mintUser(project);
    expect(await setUserAccessGroup(env, project.service_id, user_id, 42)).toBe(true);
    const user = await verifyIdToken(env, await loadActiveProject(env, project.service_id), id_token);
    expect(user.access_group).toBe(42);
  });

  it("refuses another project's token with AUTH_REQUIRED (401)", async () => {
    const [a, b] = [await newProject(), await newProject()];
    const { id_token } = await mintUser(b);
    await expect(verifyIdToken(env, await loadActiveProject(env, a.service_id), id_token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED', status: 401 });
    for (const authorization of [id_token, `Bearer ${id_token}`]) {
      const res = await call('GET', `/v1/projects/${a.service_id}/secrets`, { authorization });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('AUTH_REQUIRED');
    }
  });

  it("refuses a token claiming this project's built-in issuer but signed by another project's key", async () => {
    const [a, b] = [await newProject(), await newProject()];
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(`svc-dev:${a.service_id}`)
      .setAudience(a.service_id)
      .setSubject(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(await importPrivateKeyOf(b.service_id));
    await expect(verifyIdToken(env, await loadActiveProject(env, a.service_id), forged)).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      message: 'The id token signature does not verify.',
    });
  });

  it('refuses an expired token with AUTH_REQUIRED', async () => {
    const project = await newProject();
    const expired = await signDevIdToken(env, project.service_id, { user_id: crypto.randomUUID() }, nowSeconds() - 3600);
    await expect(verifyIdToken(env, await loadActiveProject(env, project.service_id), expired)).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      message: 'The id token has expired.',
    });
  });

  it('refuses a tampered token with AUTH_REQUIRED', async () => {
    const project = await newProject();
    const { id_token } = await mintUser(project);
    await expect(verifyIdToken(env, await loadActiveProject(env, project.service_id), tamper(id_token, { sub: crypto.randomUUID() }))).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      message: 'The id token signature does not verify.',
    });
  });

  it('refuses malformed tokens with AUTH_REQUIRED', async () => {
    const project = await loadActiveProject(env, (await newProject()).service_id);
    for (const token of ['abc', 'a.b', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', '...']) {
      await expect(verifyIdToken(env, project, token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    }
  });

  it('trusts the built-in issuer only when DEV_IDENTITY is true', async () => {
    const project = await newProject();
    const { id_token } = await mintUser(project);
    const loaded = await loadActiveProject(env, project.service_id);
    await expect(verifyIdToken({ ...env, DEV_IDENTITY: 'false' }, loaded, id_token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    await expect(verifyIdToken({ ...env, DEV_IDENTITY: 'true' }, loaded, id_token)).resolves.toMatchObject({ access_group: 1 });
  });
});

describe('resolveCaller', () => {
  it('is anonymous without a credential, owner with the owner key, the user with an id token (bare or Bearer)', async () => {
    const created = await newProject();
    const project = await loadActiveProject(env, created.service_id);
    const { user_id, id_token } = await mintUser(created);
    expect(await resolveCaller(env, project, undefined)).toEqual({ kind: 'anonymous' });
    expect(await resolveCaller(env, project, `Bearer ${created.owner_key}`)).toEqual({ kind: 'owner', owner_id: created.owner_id });
    expect(await resolveCaller(env, project, created.owner_key)).toEqual({ kind: 'owner', owner_id: created.owner_id });
    for (const header of [id_token, `Bearer ${id_token}`, `bearer ${id_token}`]) {
      expect(await resolveCaller(env, project, header)).toMatchObject({ kind: 'user', user: { user_id } });
    }
  });

  it('answers AUTH_REQUIRED for a wrong owner key or a token that does not verify', async () => {
    const created = await newProject();
    const other = await newProject();
    const project = await loadActiveProject(env, created.service_id);
    for (const header of [`Bearer ${other.owner_key}`, 'Bearer ok_wrong', 'Bearer nonsense', `Bearer ${(await mintUser(other)).id_token}`]) {
      await expect(resolveCaller(env, project, header)).rejects.toMatchObject({ code: 'AUTH_REQUIRED', status: 401 });
    }
  });
});

describe('external OIDC issuer', () => {
  const ISSUER = 'https://idp.test';
  const JWKS_URL = 'https://idp.test/.well-known/jwks.json';
  const AUDIENCE = 'client-123';

  afterEach(() => setJwksFetch(undefined));

  /** An identity provider's key pair and a fetch that serves its JWKS at JWKS_URL, counting requests. */
  async function identityProvider() {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
    const served = { count: 0 };
    const fetchJwks: FetchImplementation = async (url) => {
      served.count++;
      return url === JWKS_URL ? Response.json(jwks) : new Response('not found', { status: 404 });
    };
    setJwksFetch(fetchJwks);
    type SignOptions = { audience?: string; issuer?: string; expires?: string | number; issuedAt?: number; notBefore?: number };
    const sign = (claims: Record<string, unknown>, options: SignOptions = {}) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(options.issuer ?? ISSUER)
        .setAudience(options.audience ?? AUDIENCE)
        .setIssuedAt(options.issuedAt)
        .setExpirationTime(options.expires ?? nowSeconds() + 7200);
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(privateKey);
    };
    return { sign, served, privateKey };
  }

  async function projectWithIssuer() {
    const created = await newProject();
    const res = await patchProject(created.service_id, { identity: { issuer: ISSUER, audience: AUDIENCE, jwks_url: JWKS_URL } });
    expect(res.status).toBe(200);
    return { created, project: await loadActiveProject(env, created.service_id) };
  }

  it('inserts a first-time user with access group 1 and attributes from the claims, ignoring a claimed access group', async () => {
    const idp = await identityProvider();
    const { project } = await projectWithIssuer();
    const token = await idp.sign({ sub: 'ext-user-1', email: 'dee@example.com', email_verified: true, name: 'Dee', access_group: 99 });
    const user = await verifyIdToken(env, project, token);
    expect(user).toEqual({
      user_id: 'ext-user-1',
      email: 'dee@example.com',
      access_group: 1,
      attributes: { email: 'dee@example.com', email_verified: true, name: 'Dee' },
    });
    expect(await loadUser(env, project.service_id, 'ext-user-1')).toEqual(user);
  });

  it('keeps the server-side access group and follows the provider for attributes on later sign-ins', async () => {
    const idp = await identityProvider();
    const { project } = await projectWithIssuer();
    await verifyIdToken(env, project, await idp.sign({ sub: 'ext-2', name: 'Old' }));
    await setUserAccessGroup(env, project.service_id, 'ext-2', 9);
    const user = await verifyIdToken(env, project, await idp.sign({ sub: 'ext-2', name: 'New' }));
    expect(user).toMatchObject({ access_group: 9, attributes: { name: 'New' } });
  });

  it('fetches the JWKS once per URL and reuses it for later tokens', async () => {
    const idp = await identityProvider();
    const { project } = await projectWithIssuer();
    await verifyIdToken(env, project, await idp.sign({ sub: 'a' }));
    await verifyIdToken(env, project, await idp.sign({ sub: 'b' }));
    expect(idp.served.count).toBe(1);
  });

  it('refuses a token of the external issuer with a wrong audience, an expired one, or one the issuer did not sign', async () => {
    const idp = await identityProvider();
    const { project } = await projectWithIssuer();
    const stranger = await generateKeyPair('RS256');
    const unsigned = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('1h')
      .sign(stranger.privateKey);
    for (const token of [
      await idp.sign({ sub: 'x' }, { audience: 'another-client' }),
      await idp.sign({ sub: 'x' }, { expires: nowSeconds() - 600 }),
      await idp.sign({ sub: 'x' }, { issuer: 'https://evil.test' }),
      unsigned,
    ]) {
      await expect(verifyIdToken(env, project, token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED', status: 401 });
    }
  });

  it('refuses a token issued (iat) or valid from (nbf) more than the clock tolerance ahead, and accepts one within it', async () => {
    const idp = await identityProvider();
    const { project } = await projectWithIssuer();
    for (const [options, claim] of [
      [{ issuedAt: nowSeconds() + 3600 }, 'iat'],
      [{ issuedAt: nowSeconds() + CLOCK_TOLERANCE_SECONDS + 5 }, 'iat'],
      [{ notBefore: nowSeconds() + 3600 }, 'nbf'],
    ] as const) {
      const refused = verifyIdToken(env, project, await idp.sign({ sub: 'future' }, options));
      await expect(refused).rejects.toMatchObject({
        code: 'AUTH_REQUIRED',
        status: 401,
        message: expect.stringContaining(`"${claim}" claim lies in the future`),
      });
    }
    const withinSkew = await idp.sign(
      { sub: 'skewed' },
      { issuedAt: nowSeconds() + CLOCK_TOLERANCE_SECONDS - 10, notBefore: nowSeconds() + CLOCK_TOLERANCE_SECONDS - 10 },
    );
    expect((await verifyIdToken(env, project, withinSkew)).user_id).toBe('skewed');
  });

  it('refuses a future-issued token on the signed-in consume route with AUTH_REQUIRED and leaves no user behind', async () => {
    const idp = await identityProvider();
    const { created } = await projectWithIssuer();
    const registered = await call('PUT', `/v1/projects/${created.service_id}/tickets/signed-only`, {
      token: created.owner_key,
      body: { count: 3, actions: [] },
    });
    expect(registered.status).toBe(201);
    const token = await idp.sign({ sub: 'from-the-future' }, { issuedAt: nowSeconds() + 3600 });
    const res = await call('POST', `/tpa/${created.service_id}/signed-only`, { authorization: `Bearer ${token}`, body: {} });
    expect([res.status, res.json.code]).toEqual([400, 'AUTH_REQUIRED']);
    expect(await loadUser(env, created.service_id, 'from-the-future')).toBeNull();
    const listed = await call('GET', `/v1/projects/${created.service_id}/tickets?ticket_id=signed-only`, { token: created.owner_key });
    expect(listed.json.list[0].count).toBe(3);
  });

  it('refuses a token whose claims nest 100,000 levels deep with AUTH_REQUIRED, without a stack overflow', async () => {
    const idp = await identityProvider();
    const { project } = await projectWithIssuer();
    // Written as text: jose's own claim builder would overflow cloning such a value.
    const claims = JSON.stringify({ sub: 'deep', iss: ISSUER, aud: AUDIENCE, iat: nowSeconds(), exp: nowSeconds() + 600 });
    const deep = `${claims.slice(0, -1)},"profile":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const token = await new CompactSign(new TextEncoder().encode(deep)).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(idp.privateKey);
    await expect(verifyIdToken(env, project, token)).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      message: expect.stringContaining('nested deeper than 256 levels'),
    });
  });

  it('refuses a token of a project without an external issuer', async () => {
    const idp = await identityProvider();
    const plain = await loadActiveProject(env, (await newProject()).service_id);
    await expect(verifyIdToken(env, plain, await idp.sign({ sub: 'x' }))).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  it('answers AUTH_REQUIRED when the JWKS cannot be fetched', async () => {
    const idp = await identityProvider();
    const created = await newProject();
    await patchProject(created.service_id, { identity: { issuer: ISSUER, audience: AUDIENCE, jwks_url: 'https://idp.test/missing' } });
    const project = await loadActiveProject(env, created.service_id);
    await expect(verifyIdToken(env, project, await idp.sign({ sub: 'x' }))).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  it('verifies an external token through the Worker: a signed-in user on an owner route is refused with 403', async () => {
    const idp = await identityProvider();
    const { created } = await projectWithIssuer();
    const res = await call('GET', `/v1/projects/${created.service_id}/secrets`, { authorization: await idp.sign({ sub: 'ext-3' }) });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('INVALID_REQUEST');
  });
});

/** The built-in issuer's private key of a project, read the way the Worker reads it. */
async function importPrivateKeyOf(serviceId: string): Promise<CryptoKey> {
  const { decryptText } = await import('../../src/platform/crypto');
  const { importJWK } = await import('jose');
  const row = await env.DB.prepare('SELECT dev_private_jwk_enc FROM projects WHERE service_id = ?').bind(serviceId).first<{ dev_private_jwk_enc: string }>();
  const jwk = JSON.parse(await decryptText(env, row!.dev_private_jwk_enc, `dev-private-jwk:${serviceId}`));
  return (await importJWK(jwk, 'ES256')) as CryptoKey;
}
