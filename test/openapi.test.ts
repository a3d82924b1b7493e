import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../src/openapi/catalogue';
import { app } from '../src/router';

const shape = (path: string) => path.replace(/:[^/]+/g, '{}').replace(/\{[^}]+\}/g, '{}');

describe('the OpenAPI document', () => {
  it('documents every route the Worker answers', () => {
    const documented = new Set(ROUTES.map((r) => `${r.method.toUpperCase()} ${shape(r.path)}`));
    const served = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${shape(r.path)}`);
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('documents no route the Worker does not answer', () => {
    const served = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${shape(r.path)}`));
    expect(ROUTES.map((r) => `${r.method.toUpperCase()} ${shape(r.path)}`).filter((route) => !served.has(route))).toEqual([]);
  });

  it('is served at /openapi.json with request bodies generated from the zod schemas', async () => {
    const res = await exports.default.fetch('https://svc.test/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.0.3');
    const register = doc.paths['/v1/projects/{service_id}/tickets/{ticket_id}'].put;
    const schema = register.requestBody.content['application/json'].schema;
    expect(schema.properties).toHaveProperty('actions');
    expect(schema.properties).toHaveProperty('condition');
    expect(doc.paths['/v1/projects/{service_id}/secrets/{name}'].put.requestBody.content['application/json'].schema.required).toContain('value');
  });
});
