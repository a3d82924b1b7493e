import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { secretExists } from '../../src/platform/resources';
import { loadSecretKey } from '../../src/platform/secrets';
import { call, callWithEnv, newProject } from './worker-api';

const SECRET = 'sk_live_VERY-secret-value-123';

describe('secret keys', () => {
  it('stores a secret key and answers its settings, never its value', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/STRIPE_KEY`, {
      token: project.owner_key,
      body: { value: SECRET, destinations: ['https://api.stripe.com/v1/'], access_group: 3, locked: true, limits: { per_caller_per_minute: 10 } },
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(SECRET);
    expect(res.json).toMatchObject({
      name: 'STRIPE_KEY',
      destinations: ['https://api.stripe.com/v1/'],
      access_group: 3,
      locked: true,
      limits: { per_caller_per_minute: 10 },
    });
    expect(Object.keys(res.json).sort()).toEqual(['access_group', 'created', 'destinations', 'limits', 'locked', 'name', 'updated']);
  });

  it('defaults destinations to none, access group 0 and unlocked', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, body: { value: 'v' } });
    expect(res.json).toMatchObject({ destinations: [], access_group: 0, locked: false, limits: {} });
  });

  it('keeps only ciphertext in D1 (AES-GCM, a fresh IV per value)', async () => {
    const project = await newProject();
    for (const name of ['A', 'B']) {
      await call('PUT', `/v1/projects/${project.service_id}/secrets/${name}`, { token: project.owner_key, body: { value: SECRET } });
    }
    const { results } = await env.DB.prepare('SELECT * FROM secret_keys WHERE service_id = ?').bind(project.service_id).all<Record<string, string>>();
    expect(results).toHaveLength(2);
    for (const row of results) {
      expect(JSON.stringify(row)).not.toContain(SECRET);
      expect(JSON.stringify(row)).not.toContain(btoa(SECRET).slice(0, 12));
    }
    expect(results[0].value_enc).not.toBe(results[1].value_enc);
  });

  it('lists secret keys by name without values', async () => {
    const project = await newProject();
    await call('PUT', `/v1/projects/${project.service_id}/secrets/ZED`, { token: project.owner_key, body: { value: SECRET } });
    await call('PUT', `/v1/projects/${project.service_id}/secrets/ALPHA`, { token: project.owner_key, body: { value: SECRET } });
    const res = await call('GET', `/v1/projects/${project.service_id}/secrets`, { token: project.owner_key });
    expect(res.status).toBe(200);
    expect(res.json.list.map((s: { name: string }) => s.name)).toEqual(['ALPHA', 'ZED']);
    expect(res.text).not.toContain(SECRET);
    const one = await call('GET', `/v1/projects/${project.service_id}/secrets/ALPHA`, { token: project.owner_key });
    expect(one.json.name).toBe('ALPHA');
    expect(one.text).not.toContain(SECRET);
  });

  it('replaces a secret key on PUT: new value and settings, same created time', async () => {
    const project = await newProject();
    const first = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, {
      token: project.owner_key,
      body: { value: 'one', access_group: 5, locked: true },
    });
    const second = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, body: { value: 'two' } });
    expect(second.json).toMatchObject({ created: first.json.created, access_group: 0, locked: false });
    expect((await loadSecretKey(env, project.service_id, 'K'))?.value).toBe('two');
  });

  it('decrypts the value for the platform with loadSecretKey', async () => {
    const project = await newProject();
    await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, {
      token: project.owner_key,
      body: { value: SECRET, destinations: ['http://localhost:8787/'], access_group: 2 },
    });
    expect(await loadSecretKey(env, project.service_id, 'K')).toEqual({
      name: 'K',
      value: SECRET,
      destinations: ['http://localhost:8787/'],
      access_group: 2,
      locked: false,
      limits: {},
    });
    expect(await loadSecretKey(env, project.service_id, 'NOPE')).toBeNull();
    expect(await secretExists(env, project.service_id, 'K')).toBe(true);
    expect(await secretExists(env, project.service_id, 'NOPE')).toBe(false);
  });

  it("keeps each project's secret keys to itself", async () => {
    const [a, b] = [await newProject(), await newProject()];
    await call('PUT', `/v1/projects/${a.service_id}/secrets/K`, { token: a.owner_key, body: { value: SECRET } });
    expect(await secretExists(env, b.service_id, 'K')).toBe(false);
    const res = await call('GET', `/v1/projects/${b.service_id}/secrets`, { token: b.owner_key });
    expect(res.json.list).toEqual([]);
  });

  it('deletes a secret key, then answers 404 NOT_FOUND for it', async () => {
    const project = await newProject();
    await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, body: { value: SECRET } });
    const deleted = await call('DELETE', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key });
    expect(deleted.json).toEqual({ deleted: true });
    const again = await call('DELETE', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key });
    expect(again.status).toBe(404);
    expect(again.json.code).toBe('NOT_FOUND');
    const read = await call('GET', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key });
    expect(read.status).toBe(404);
    expect(await secretExists(env, project.service_id, 'K')).toBe(false);
  });

  it('refuses a name outside ^[A-Za-z0-9_-]{1,64}$ with INVALID_PARAMETER naming "name"', async () => {
    const project = await newProject();
    for (const name of ['bad.name', 'a%20b', 'x'.repeat(65), '%C3%A9']) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/${name}`, { token: project.owner_key, body: { value: 'v' } });
      expect([name, res.status, res.json.code]).toEqual([name, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain('"name"');
    }
  });

  it('refuses bad secret bodies with INVALID_PARAMETER naming the field, storing nothing', async () => {
    const project = await newProject();
    const cases: Array<[unknown, string]> = [
      [{}, 'value'],
      [{ value: 42 }, 'value'],
      [{ value: '' }, 'value'],
      [{ value: 'x'.repeat(4097) }, 'value'],
      [{ value: 'v', destinations: ['ftp://host/'] }, 'destinations[0]'],
      [{ value: 'v', destinations: ['api.example.com'] }, 'destinations[0]'],
      [{ value: 'v', destinations: 'https://a.example/' }, 'destinations'],
      [{ value: 'v', access_group: 100 }, 'access_group'],
      [{ value: 'v', access_group: -1 }, 'access_group'],
      [{ value: 'v', access_group: 2.5 }, 'access_group'],
      [{ value: 'v', locked: 'yes' }, 'locked'],
      [{ value: 'v', secretName: 'K' }, 'secretName'],
      [[], 'body'],
      ['v', 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, body });
      expect([field, res.status, res.json.code]).toEqual([field, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain(field);
    }
    expect(await secretExists(env, project.service_id, 'K')).toBe(false);
  });

  it('refuses a destination with user info, a query or fragment, or a * other than the first host label, saying so', async () => {
    const project = await newProject();
    const cases: Array<[string, string]> = [
      ['https://name@api.example.com/', 'Invalid "destinations[1]": may not hold a user name or password.'],
      ['https://api.example.com/v1?key=1', 'Invalid "destinations[1]": may not hold a query or fragment (a query is never compared).'],
      ['https://api.example.com/v1#top', 'Invalid "destinations[1]": may not hold a query or fragment (a query is never compared).'],
      ['https://api.*.com/', 'Invalid "destinations[1]": may hold "*" only as the whole first label of the host, as in https://*.example.com.'],
      ['https://api.example.com/v1/../admin', 'Invalid "destinations[1]": may not hold a "." or ".." path segment.'],
    ];
    for (const [destination, message] of cases) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, {
        token: project.owner_key,
        body: { value: SECRET, destinations: ['https://*.example.com/v1', destination] },
      });
      expect([destination, res.status, res.json.code, res.json.message, res.json.detail]).toEqual([
        destination,
        400,
        'INVALID_PARAMETER',
        message,
        { field: 'destinations[1]' },
      ]);
    }
    expect(await secretExists(env, project.service_id, 'K')).toBe(false);
  });

  it('accepts a value of exactly 4096 characters', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, body: { value: 'x'.repeat(4096) } });
    expect(res.status).toBe(200);
    expect((await loadSecretKey(env, project.service_id, 'K'))?.value).toHaveLength(4096);
  });

  it('answers INTERNAL_ERROR 500 saying the key is not configured when SECRETS_KEY is missing, storing nothing', async () => {
    const project = await newProject();
    const res = await callWithEnv({ SECRETS_KEY: undefined }, 'PUT', `/v1/projects/${project.service_id}/secrets/K`, {
      token: project.owner_key,
      body: { value: SECRET },
    });
    expect(res.status).toBe(500);
    expect(res.json.code).toBe('INTERNAL_ERROR');
    expect(res.json.message).toMatch(/SECRETS_KEY.*not configured/);
    expect(await secretExists(env, project.service_id, 'K')).toBe(false);
  });

  it('answers INTERNAL_ERROR 500 for project creation when SECRETS_KEY is missing (the built-in private key is encrypted)', async () => {
    const res = await callWithEnv({ SECRETS_KEY: undefined }, 'POST', '/v1/projects', { token: 'test-operator-token' });
    expect(res.status).toBe(500);
    expect(res.json.message).toContain('not configured');
  });
});
