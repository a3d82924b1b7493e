import { env, exports } from 'cloudflare:workers';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/limits';
import { loadProject } from '../../src/platform/projects';
import { readJsonBody } from '../../src/platform/validation';
import * as schemas from '../../src/platform/schemas';
import { BASE, OPERATOR_TOKEN, call, newProject, patchProject } from './worker-api';

describe('body validation', () => {
  it('refuses malformed JSON with INVALID_PARAMETER naming the body', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, raw: '{"value": ' });
    expect([res.status, res.json.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(res.json.message).toContain('body');
  });

  it('names every unknown field and reports the first one as detail.field', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, {
      token: project.owner_key,
      body: { value: 'v', secretName: 'K', extra: 1 },
    });
    expect(res.json).toEqual({ code: 'INVALID_PARAMETER', message: 'Unknown field "secretName", "extra".', detail: { field: 'secretName' } });
  });

  it('explains a refused attribute name by its rule', async () => {
    const project = await newProject();
    const res = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { token: project.owner_key, body: { attributes: { exp: 1 } } });
    expect(res.json.detail).toEqual({ field: 'attributes.exp' });
    expect(res.json.message).toContain('reserved claim name');
  });

  it('names a refused key that is not an identifier bare, as the body refusals always have (schemas/paths.ts plainPath)', async () => {
    const project = await newProject();
    const res = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { token: project.owner_key, body: { attributes: { 'my claim': 1 } } });
    expect(res.json).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'Invalid "attributes.my claim": must be 1 to 64 letters, digits, _ or - and not a reserved claim name.',
      detail: { field: 'attributes.my claim' },
    });
  });

  it('keeps zod text as is in a body refusal', async () => {
    const res = await call('POST', '/v1/projects', { token: OPERATOR_TOKEN, body: { name: 3 } });
    expect(res.json).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'Invalid "name": Invalid input: expected string, received number.',
      detail: { field: 'name' },
    });
  });

  it('refuses an empty body where one is required', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/mail-templates/t`, { token: project.owner_key });
    expect([res.status, res.json.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  it(`refuses a body larger than ${MAX_BODY_BYTES} bytes`, async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/mail-templates/t`, {
      token: project.owner_key,
      body: { subject: 's', html: 'x'.repeat(MAX_BODY_BYTES) },
    });
    expect([res.status, res.json.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  describe('a chunked body (no Content-Length) over the limit', () => {
    const CHUNK = 64 * 1024;
    /** Would take 64 MiB to read whole; counts what was pulled from it. */
    function endlessJson() {
      const pulled = { bytes: 0 };
      const chunk = new TextEncoder().encode('x'.repeat(CHUNK));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"subject":"s","html":"'));
        },
        pull(controller) {
          if (pulled.bytes >= 64 * 1024 * 1024) return controller.close();
          pulled.bytes += CHUNK;
          controller.enqueue(chunk);
        },
      });
      return { stream, pulled };
    }

    it(`is refused with INVALID_PARAMETER once past ${MAX_BODY_BYTES} bytes, without being read whole`, async () => {
      const { stream, pulled } = endlessJson();
      const request = new Request(`${BASE}/body`, { method: 'POST', body: stream });
      expect(request.headers.get('content-length')).toBeNull();
      const refusal = await readJsonBody(request).catch((err: unknown) => err);
      expect(refusal).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'body' } });
      expect(pulled.bytes).toBeLessThan(MAX_BODY_BYTES + 4 * CHUNK);
    });

    it('is refused by a route with 400 INVALID_PARAMETER naming the body', async () => {
      const project = await newProject();
      const { stream, pulled } = endlessJson();
      const res = await exports.default.fetch(`${BASE}/v1/projects/${project.service_id}/mail-templates/t`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${project.owner_key}`, 'content-type': 'application/json' },
        body: stream,
      });
      expect([res.status, await res.json()]).toEqual([
        400,
        { code: 'INVALID_PARAMETER', message: `Invalid "body": larger than ${MAX_BODY_BYTES} bytes.`, detail: { field: 'body' } },
      ]);
      expect(pulled.bytes).toBeLessThan(8 * MAX_BODY_BYTES);
    });
  });

  it('refuses bad project creation bodies (unknown plan, unknown field, long name) without creating a project', async () => {
    const before = await env.DB.prepare('SELECT COUNT(*) AS n FROM projects').first<{ n: number }>();
    for (const [body, field] of [
      [{ plan: 'gold' }, 'plan'],
      [{ owner_id: 'x' }, 'owner_id'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 3 }, 'name'],
    ] as const) {
      const res = await call('POST', '/v1/projects', { token: OPERATOR_TOKEN, body });
      expect([field, res.status, res.json.code]).toEqual([field, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain(field);
    }
    const after = await env.DB.prepare('SELECT COUNT(*) AS n FROM projects').first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });

  it('refuses bad project changes with INVALID_PARAMETER naming the field, changing nothing', async () => {
    const created = await newProject();
    const cases: Array<[unknown, string]> = [
      [{ active: 'no' }, 'active'],
      [{ plan: 'enterprise' }, 'plan'],
      [{ identity: { issuer: 'https://i', audience: 'a' } }, 'identity.jwks_url'],
      [{ identity: { issuer: 'https://i', audience: 'a', jwks_url: 'http://i/jwks' } }, 'identity.jwks_url'],
      [{ identity: { issuer: 'https://i', audience: 'a', jwks_url: 'https://i/jwks', extra: 1 } }, 'identity.extra'],
      [{ identity: { issuer: `svc-dev:${created.service_id}`, audience: 'a', jwks_url: 'https://i/jwks' } }, 'identity.issuer'],
      [{ secure_request_key: 7 }, 'secure_request_key'],
      [{ secure_request_key: 'x'.repeat(4097) }, 'secure_request_key'],
      [{ owner_id: 'mine' }, 'owner_id'],
    ];
    for (const [body, field] of cases) {
      const res = await patchProject(created.service_id, body);
      expect([field, res.status, res.json.code]).toEqual([field, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain(field);
    }
    expect(await loadProject(env, created.service_id)).toMatchObject({ active: true, plan: 'free', identity: null, secure_request_key_set: false });
  });

  it('keeps every exported body schema representable as JSON Schema', () => {
    const bodies = [
      schemas.CreateProjectBody,
      schemas.UpdateProjectBody,
      schemas.DevUserBody,
      schemas.SecretKeyBody,
      schemas.MailTemplateBody,
      schemas.NewsletterBody,
    ];
    for (const schema of bodies) {
      const json = z.toJSONSchema(schema) as { type: string; additionalProperties: boolean };
      expect(json.type).toBe('object');
      expect(json.additionalProperties).toBe(false);
    }
  });
});
