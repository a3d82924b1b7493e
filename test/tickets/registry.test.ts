import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const put = (ticketId: string, body: unknown, token = project.owner_key) =>
  call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token, body });
const list = (token: string, query = '') => call('GET', `/v1/projects/${project.service_id}/tickets${query}`, { token });

describe('ticket registry', () => {
  it('a new ticket answers 201 with timestamp, updated and rules_version 2', async () => {
    const before = Date.now();
    const res = await put('fresh', { description: 'd', actions: [] });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ ticket_id: 'fresh', description: 'd', rules_version: 2, legacy: false });
    expect(res.json.timestamp).toBeGreaterThanOrEqual(before);
    expect(res.json.updated).toBe(res.json.timestamp);
  });

  it('updating keeps timestamp, moves updated and replaces the whole definition', async () => {
    const first = await put('upd', { description: 'one', condition: { method: 'POST' }, actions: [] });
    const second = await put('upd', { actions: [] });
    expect(second.status).toBe(200);
    expect(second.json.timestamp).toBe(first.json.timestamp);
    expect(second.json.updated).toBeGreaterThanOrEqual(first.json.updated);
    expect(second.json.condition).toEqual({});
    expect(second.json.description).toBe('');
  });

  it('on update a blank count keeps the remaining count; 0 exhausts the ticket', async () => {
    await put('counted', { count: 3, actions: [] });
    await call('POST', `/tp/${project.service_id}/counted`, { body: {} });
    const kept = await put('counted', { description: 'blank count', actions: [] });
    expect(kept.json.count).toBe(2);
    const exhausted = await put('counted', { count: 0, actions: [] });
    expect(exhausted.json.count).toBe(0);
    expect((await call('POST', `/tp/${project.service_id}/counted`, { body: {} })).json).toMatchObject({ code: 'TICKET_EXHAUSTED' });
  });

  it('a consumption right after registration sees the new definition', async () => {
    await put('swap', { condition: { method: 'GET' }, actions: [] });
    expect((await call('POST', `/tp/${project.service_id}/swap`, { body: {} })).json).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    await put('swap', { condition: { method: 'POST' }, actions: [] });
    expect((await call('POST', `/tp/${project.service_id}/swap`, { body: {} })).status).toBe(200);
  });

  it('only the owner can register: a signed-in admin gets INVALID_REQUEST with the spec message', async () => {
    const admin = await mintUser(project, { access_group: 99 });
    for (const token of [admin.id_token, `Bearer ${admin.id_token}`]) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/tickets/nope`, { headers: { authorization: token }, body: { actions: [] } });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ code: 'INVALID_REQUEST', message: 'Only the project owner can register tickets.' });
    }
    const del = await call('DELETE', `/v1/projects/${project.service_id}/tickets/fresh`, { token: admin.id_token });
    expect(del.json).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('no credential is 401 and a wrong owner key is 401', async () => {
    expect((await call('PUT', `/v1/projects/${project.service_id}/tickets/x`, { body: { actions: [] } })).status).toBe(401);
    expect((await put('x', { actions: [] }, 'ok_wrong')).status).toBe(401);
  });

  it('a refused registration stores nothing, in D1 or in the TicketDO', async () => {
    const res = await put('bad', { count: -1, actions: [] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(res.json.message).toMatch(/count/);
    expect((await ticketStub(env, project.service_id, 'bad').status()).exists).toBe(false);
    const row = await env.DB.prepare('SELECT 1 FROM tickets WHERE service_id = ? AND ticket_id = ?').bind(project.service_id, 'bad').first();
    expect(row).toBeNull();
  });

  it('malformed JSON, a wrong type and an invalid ticket id are INVALID_PARAMETER', async () => {
    const malformed = await call('PUT', `/v1/projects/${project.service_id}/tickets/m`, {
      token: project.owner_key,
      raw: '{"actions": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await put('m', { actions: 'none' })).json.message).toMatch(/actions/);
    expect((await put('-bad', { actions: [] })).json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await put('x'.repeat(65), { actions: [] })).json).toMatchObject({ code: 'INVALID_PARAMETER' });
  });

  it('every refusal of a definition names its field in detail.field, the path its message starts with', async () => {
    const refusals = [
      { body: { actions: 'none' }, field: 'actions' },
      { body: { actions: [{ act: 'req', exe: { url: 'ftp://x' } }] }, field: 'actions[0].exe.url' },
      { body: { actions: [{ act: 'req', exe: { url: 'https://x.test', headers: { 'X-Id': 'a\nb' } } }] }, field: 'actions[0].exe.headers["X-Id"]' },
      { body: { condition: { signature: { secretName: 'nope', header: 'x-sig' } }, actions: [] }, field: 'condition.signature.secretName' },
      { body: { actions: [], colour: 'red' }, field: 'colour' },
    ];
    for (const { body, field } of refusals) {
      const res = await put('refused', body);
      expect(res.status, field).toBe(400);
      expect(res.json.detail, field).toEqual({ field });
      expect(res.json.message.startsWith(`${field}: `), res.json.message).toBe(true);
    }
  });

  it('a signature naming a secret that does not exist is refused; once stored it is accepted', async () => {
    const ticket = { condition: { signature: { secret: 'hook', header: 'x-sig' } }, actions: [] };
    expect((await put('signed', ticket)).json.message).toMatch(/secretName|hook/);
    await putSecret(project, 'hook', 's3cret');
    const ok = await put('signed', ticket);
    expect(ok.status).toBe(201);
    expect(ok.json.condition.signature).toMatchObject({ secretName: 'hook', algorithm: 'sha256', encoding: 'hex' });
    expect(JSON.stringify(ok.json)).not.toContain('s3cret');
  });

  it('delete removes the ticket and its per-user counters, and keeps the log', async () => {
    await put('gone', { limit_per_user: 1, actions: [] });
    const user = await mintUser(project);
    await call('POST', `/tpa/${project.service_id}/gone`, { token: user.id_token, body: {} });
    const del = await call('DELETE', `/v1/projects/${project.service_id}/tickets/gone`, { token: project.owner_key });
    expect(del.json).toEqual({ deleted: true, ticket_id: 'gone' });
    expect((await call('POST', `/tp/${project.service_id}/gone`, { body: {} })).json).toMatchObject({ code: 'TICKET_NOT_FOUND' });
    await put('gone', { limit_per_user: 1, actions: [] });
    expect((await call('POST', `/tpa/${project.service_id}/gone`, { token: user.id_token, body: {} })).status).toBe(200);
    expect((await call('DELETE', `/v1/projects/${project.service_id}/tickets/never`, { token: project.owner_key })).status).toBe(404);
  });
});

describe('getTickets listing', () => {
  it('the owner sees every field; a signed-in user sees the public subset', async () => {
    await registerTicket(project, 'listed', {
      description: 'pub',
      count: 5,
      limit_per_user: 2,
      time_to_live: Date.now() + 86_400_000,
      condition: { method: 'POST' },
      actions: [],
    });
    const owner = await list(project.owner_key, '?ticket_id=listed');
    expect(owner.json.list[0]).toMatchObject({
      ticket_id: 'listed',
      description: 'pub',
      count: 5,
      limit_per_user: 2,
      condition: { method: 'POST' },
      actions: [],
      legacy: false,
      rules_version: 2,
    });
    const user = await mintUser(project);
    const seen = await list(user.id_token, '?ticket_id=listed');
    expect(Object.keys(seen.json.list[0]).sort()).toEqual(['count', 'description', 'ticket_id', 'time_to_live', 'timestamp']);
  });

  it('an unlimited ticket lists no count and one that never expires no time_to_live', async () => {
    await registerTicket(project, 'open', { actions: [] });
    const res = await list(project.owner_key, '?ticket_id=open');
    expect(res.json.list[0]).not.toHaveProperty('count');
    expect(res.json.list[0]).not.toHaveProperty('time_to_live');
  });

  it('a signed-out caller cannot list', async () => {
    expect((await call('GET', `/v1/projects/${project.service_id}/tickets`)).status).toBe(401);
  });

  it('pages by startKey until endOfList', async () => {
    const paged = await createProject();
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) await registerTicket(paged, id, { actions: [] });
    const seen: string[] = [];
    let startKey: string | null = null;
    for (let i = 0; i < 5; i++) {
      const query: string = `?limit=2${startKey ? `&startKey=${startKey}` : ''}`;
      const page = await call('GET', `/v1/projects/${paged.service_id}/tickets${query}`, { token: paged.owner_key });
      seen.push(...page.json.list.map((t: { ticket_id: string }) => t.ticket_id));
      if (page.json.endOfList) break;
      startKey = page.json.startKey;
    }
    expect(seen).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });
});
