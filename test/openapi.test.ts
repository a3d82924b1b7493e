import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorStatuses } from '../src/openapi/operation';
import { servedRoute, servedRoutes } from '../src/openapi/route';
import { app } from '../src/router';
import { OPERATOR_TOKEN, call, createProject, mintUser, putSecret, registerTicket, type TestProject } from './helpers/api';
import { flushLogs } from './logs/log-helpers';

const shape = (path: string) => path.replace(/:[^/]+/g, '{}').replace(/\{[^}]+\}/g, '{}');

async function servedDocument(): Promise<any> {
  const res = await exports.default.fetch('https://svc.test/openapi.json');
  expect(res.status).toBe(200);
  return res.json();
}

/** Every operation of the document with its method and path. */
const operations = (doc: any): { method: string; path: string; op: any }[] =>
  Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })));

/** Every "$ref" value in the document, at any depth. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

/** JSON pointers of the schemas marked nullable with no type beside it (OpenAPI 3.0 wants one). */
function untypedNullables(value: unknown, at = '#'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => untypedNullables(item, `${at}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  const schema = value as Record<string, unknown>;
  const here = schema.nullable === true && schema.type === undefined ? [at] : [];
  return [...here, ...Object.entries(schema).flatMap(([key, item]) => untypedNullables(item, `${at}/${key}`))];
}

describe('the OpenAPI document', () => {
  it('declares every route the Worker answers, so each is in the document', async () => {
    const declared = new Set(servedRoutes(app).map((r) => `${r.method.toUpperCase()} ${shape(r.path)}`));
    const served = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${shape(r.path)}`);
    expect(served.filter((route) => !declared.has(route))).toEqual([]);
    const doc = await servedDocument();
    const documented = new Set(operations(doc).map(({ method, path }) => `${method.toUpperCase()} ${shape(path)}`));
    expect([...declared].filter((route) => !documented.has(route))).toEqual([]);
  });

  it('is served at /openapi.json with request bodies generated from the zod schemas', async () => {
    const doc = await servedDocument();
    expect(doc.openapi).toBe('3.0.3');
    const schemas = doc.components.schemas;
    const register = doc.paths['/v1/projects/{service_id}/tickets/{ticket_id}'].put;
    const body = schemas[register.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    expect(body.properties).toHaveProperty('actions');
    expect(body.properties).toHaveProperty('condition');
    const secret = doc.paths['/v1/projects/{service_id}/secrets/{name}'].put.requestBody.content['application/json'].schema;
    expect(schemas[secret.$ref.split('/').pop()].required).toContain('value');
  });

  it('names a server and resolves every $ref inside components/schemas, with no nested definitions', async () => {
    const doc = await servedDocument();
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"definitions"');
    expect(text).not.toContain('"$id"');
    const unresolved = refsIn(doc).filter((ref) => {
      const match = /^#\/components\/schemas\/([\w.-]+)$/.exec(ref);
      return !match || !(match[1] in doc.components.schemas);
    });
    expect(unresolved).toEqual([]);
  });

  it('writes a type beside every nullable, a nullable named schema included (OpenAPI 3.0)', async () => {
    const doc = await servedDocument();
    expect(untypedNullables(doc)).toEqual([]);
    const register = doc.paths['/v1/projects/{service_id}/tickets/{ticket_id}'].put;
    const body = doc.components.schemas[register.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    expect(body.properties.condition).toMatchObject({ type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/TicketCondition' }] });
  });

  it('gives every operation a unique operationId, a declared tag and typed parameters', async () => {
    const doc = await servedDocument();
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(doc.tags.map((tag: any) => tag.name));
    expect(operations(doc).filter(({ op }) => !op.tags.every((tag: string) => tags.has(tag)))).toEqual([]);
    const untyped = operations(doc).flatMap(({ method, path, op }) =>
      (op.parameters ?? []).filter((p: any) => typeof p.schema?.type !== 'string').map((p: any) => `${method} ${path} ${p.name}`),
    );
    expect(untyped).toEqual([]);
  });

  it('gives every operation a success schema and its 4XX error responses with the flat error body', async () => {
    const doc = await servedDocument();
    for (const { method, path, op } of operations(doc)) {
      const route = servedRoutes(app).find((r) => r.method === method && r.path === path)!.doc;
      const statuses = Object.keys(op.responses);
      // A 2XX, or 101 Switching Protocols on a WebSocket route.
      expect(route.upgrade ? route.success.status === 101 : /^2\d\d$/.test(String(route.success.status)), `${method} ${path}`).toBe(true);
      const success = op.responses[route.success.status];
      expect(success.content['application/json'].schema, `${method} ${path}`).toEqual({ $ref: expect.stringMatching(/^#\/components\/schemas\//) });
      expect(statuses.filter((s) => s.startsWith('4')).map(Number), `${method} ${path}`).toEqual(errorStatuses(route));
      for (const status of [...statuses.filter((s) => s.startsWith('4')), 'default']) {
        expect(op.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    const refusing = servedRoutes(app)
      .map((r) => r.doc)
      .filter((r) => !r.noRefusals);
    expect(refusing.every((route) => errorStatuses(route).length > 0)).toBe(true);
  });
});

describe('the documented answers are what the routes send', () => {
  let project: TestProject;
  let user: { user_id: string; id_token: string };
  const base = () => `/v1/projects/${project.service_id}`;
  const owner = () => ({ token: project.owner_key });

  beforeAll(async () => {
    project = await createProject();
    user = await mintUser(project, { email: 'reader@example.com' });
    await putSecret(project, 'doc-secret', 'v');
    await registerTicket(project, 'doc-records', {
      count: 10,
      actions: [{ act: 'pstr', exe: { table: { name: 'notes', access_group: 'admin' }, data: { text: '${body[text]}' }, tags: ['a'] } }],
    });
  });

  /** operationId → a call that succeeds. */
  const successfulCalls: Record<string, () => ReturnType<typeof call>> = {
    getHealth: () => call('GET', '/v1/health'),
    getOpenApi: () => call('GET', '/openapi.json'),
    createProject: () => call('POST', '/v1/projects', { token: OPERATOR_TOKEN, body: {} }),
    updateProject: () => call('PATCH', base(), { token: OPERATOR_TOKEN, body: { name: 'Renamed' } }),
    createDevUser: () => call('POST', `${base()}/dev/users`, { ...owner(), body: { email: 'another@example.com' } }),
    listSecretKeys: () => call('GET', `${base()}/secrets`, owner()),
    getSecretKey: () => call('GET', `${base()}/secrets/doc-secret`, owner()),
    putSecretKey: () => call('PUT', `${base()}/secrets/doc-secret-2`, { ...owner(), body: { value: 'w' } }),
    putMailTemplate: () => call('PUT', `${base()}/mail-templates/welcome`, { ...owner(), body: { subject: 'Hi' } }),
    getMailTemplate: () => call('GET', `${base()}/mail-templates/welcome`, owner()),
    listMailTemplates: () => call('GET', `${base()}/mail-templates`, owner()),
    putNewsletter: () => call('PUT', `${base()}/newsletters/public/n1`, { ...owner(), body: { subject: 'News' } }),
    getNewsletter: () => call('GET', `${base()}/newsletters/public/n1`, owner()),
    listNewsletters: () => call('GET', `${base()}/newsletters`, owner()),
    putSubscriber: () => call('PUT', `${base()}/subscribers/public/reader@example.com`, { ...owner(), body: {} }),
    listSubscribers: () => call('GET', `${base()}/subscribers/public`, owner()),
    listMailOutbox: () => call('GET', `${base()}/mail-outbox`, owner()),
    consumeTicket: () => call('POST', `/tp/${project.service_id}/doc-records`, { body: { text: 'hello' } }),
    consumeTicketSignedIn: () => call('POST', `/tpa/${project.service_id}/doc-records`, { token: user.id_token, body: { text: 'signed' } }),
    listRecords: () => call('GET', `${base()}/records`, owner()),
    registerTicket: () => call('PUT', `${base()}/tickets/doc-open`, { ...owner(), body: { description: 'open', actions: [] } }),
    getTickets: () => call('GET', `${base()}/tickets`, owner()),
    getConsumedTickets: () => call('GET', `${base()}/consumed`, { token: user.id_token }),
    // Clears only what is older than 1 ms since the epoch: the log listings below still find the consumptions above.
    clearTicketLog: () => call('POST', `${base()}/tickets/doc-records/clear-log`, { ...owner(), body: { before: 1 } }),
    deleteTicket: () => call('DELETE', `${base()}/tickets/doc-open`, owner()),
    deleteSubscriber: () => call('DELETE', `${base()}/subscribers/public/reader@example.com`, owner()),
    deleteNewsletter: () => call('DELETE', `${base()}/newsletters/public/n1`, owner()),
    deleteMailTemplate: () => call('DELETE', `${base()}/mail-templates/welcome`, owner()),
    deleteSecretKey: () => call('DELETE', `${base()}/secrets/doc-secret-2`, owner()),
  };

  it('each call answers the documented success status and parses with the documented schema', async () => {
    for (const [operationId, send] of Object.entries(successfulCalls)) {
      const route = servedRoute(app, operationId).doc;
      const res = await send();
      expect([res.status, operationId]).toEqual([route.success.status, operationId]);
      const parsed = route.success.schema.safeParse(res.json);
      expect(parsed.error?.issues ?? [], operationId).toEqual([]);
    }
  });

  it('the log listings and a record parse with their documented answers', async () => {
    await flushLogs(project.service_id, 'doc-records');
    const consumed = await call('GET', `${base()}/consumed`, { token: user.id_token });
    expect(consumed.json.list.length).toBeGreaterThan(0);
    expect(servedRoute(app, 'getConsumedTickets').doc.success.schema.safeParse(consumed.json).error?.issues ?? []).toEqual([]);
    const getTickets = servedRoute(app, 'getTickets').doc;
    const log = await call('GET', `${base()}/tickets?ticket_id=${encodeURIComponent('#doc-records#')}`, owner());
    expect(log.json.list.length).toBeGreaterThan(0);
    expect(getTickets.success.schema.safeParse(log.json).error?.issues ?? []).toEqual([]);
    const consumeId = log.json.list[0].consume_id;
    const rows = await call('GET', `${base()}/tickets?ticket_id=${encodeURIComponent(`@doc-records#${consumeId}#`)}`, owner());
    expect(rows.json.list.length).toBeGreaterThan(0);
    expect(getTickets.success.schema.safeParse(rows.json).error?.issues ?? []).toEqual([]);
    const record = servedRoute(app, 'getRecord').doc;
    const listed = await call('GET', `${base()}/records`, owner());
    const one = await call('GET', `${base()}/records/${listed.json.list[0].record_id}`, owner());
    expect(record.success.schema.safeParse(one.json).error?.issues ?? []).toEqual([]);
  });
});
