import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StoredTicket } from '../../schemas/ticket-types';
import { saveDirectoryEntry } from '../../src/platform/ticket-directory';
import { receiptHash } from '../../src/consume/receipt';
import { call, createProject, mintUser, OPERATOR_TOKEN, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
const sha256Hex = async (text: string) =>
  Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))), (b) => b.toString(16).padStart(2, '0')).join('');

beforeAll(async () => {
  project = await createProject();
});

const tp = (ticket: string, body?: unknown, headers?: Record<string, string>) =>
  call('POST', `/tp/${project.service_id}/${ticket}`, {
    body: body ?? {},
    headers: { 'cf-connecting-ip': '203.0.113.9', 'user-agent': 'test-agent', ...headers },
  });

describe('consume routes', () => {
  it('a successful POST consumption answers the receipt { tkid, hash } with no stage', async () => {
    await registerTicket(project, 'plain', { actions: [] });
    const res = await tp('plain', { a: 1 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['hash', 'tkid']);
    expect(res.json.tkid).toMatch(/^#plain#[0-9A-Za-z]+#203\.0\.113\.9\(test-agent\)$/);
  });

  it('the owner can verify the receipt hash with the owner key', async () => {
    await registerTicket(project, 'verify', { actions: [] });
    const res = await tp('verify');
    expect(res.json.hash).toBe(await receiptHash(await sha256Hex(project.owner_key), res.json.tkid));
  });

  it('GET /tg reads the query string as params, JSON-parsed', async () => {
    await registerTicket(project, 'qty', { condition: { params: [{ key: 'qty', operator: '=', value: 2 }] }, actions: [] });
    expect((await call('GET', `/tg/${project.service_id}/qty?qty=2`)).status).toBe(200);
    const wrong = await call('GET', `/tg/${project.service_id}/qty?qty=%222%22`);
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'params', keys: ['qty'] } });
  });

  it('an unknown project answers INVALID_SERVICE before the ticket is read', async () => {
    const res = await call('POST', '/tp/nosuchservice0000000/plain', { body: {} });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_SERVICE', stage: 'ticket' });
  });

  it('an inactive project answers SERVICE_DISABLED', async () => {
    const other = await createProject();
    await registerTicket(other, 'x', { actions: [] });
    await call('PATCH', `/v1/projects/${other.service_id}`, { token: OPERATOR_TOKEN, body: { active: false } });
    const res = await call('POST', `/tp/${other.service_id}/x`, { body: {} });
    expect(res.json).toMatchObject({ code: 'SERVICE_DISABLED', stage: 'ticket' });
  });

  it('a request carrying an X-Svc-Ticket header is refused', async () => {
    const res = await tp('plain', {}, { 'x-svc-ticket': 'anything' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_REQUEST', stage: 'ticket' });
  });

  it('a ticket id starting with # or ! answers TICKET_NOT_FOUND', async () => {
    for (const id of ['%23plain', '!plain']) {
      const res = await call('POST', `/tp/${project.service_id}/${id}`, { body: {} });
      expect(res.json).toMatchObject({ code: 'TICKET_NOT_FOUND', stage: 'ticket' });
    }
  });

  it('an unknown ticket answers TICKET_NOT_FOUND and leaves no log row', async () => {
    const res = await tp('missing');
    expect(res.json).toMatchObject({ code: 'TICKET_NOT_FOUND', stage: 'ticket', ticket_id: 'missing' });
    expect(await ticketStub(env, project.service_id, 'missing').pendingLogCount()).toBe(0);
  });

  it('a signed-in GET is INVALID_PARAMETER', async () => {
    const res = await call('GET', `/tpa/${project.service_id}/plain`);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', message: 'Signed-in consumption is POST only.' });
  });

  it('a ticket past time_to_live answers TICKET_EXPIRED', async () => {
    const now = Date.now();
    // Stored as registration stores it (the object's copy, then the directory's), with a definition registration would refuse.
    const stored: StoredTicket = { ticket_id: 'old', condition: {}, actions: [], time_to_live: now - 1, timestamp: now, updated: now, rules_version: 2 };
    await ticketStub(env, project.service_id, 'old').store(stored, null);
    await saveDirectoryEntry(env, project.service_id, stored);
    expect((await tp('old')).json).toMatchObject({ code: 'TICKET_EXPIRED', stage: 'ticket' });
  });

  it('count 0 answers TICKET_EXHAUSTED and each success takes one', async () => {
    await registerTicket(project, 'twice', { count: 2, actions: [] });
    expect((await tp('twice')).status).toBe(200);
    expect((await tp('twice')).status).toBe(200);
    expect((await tp('twice')).json).toMatchObject({ code: 'TICKET_EXHAUSTED' });
  });

  it('a signed-in user who reached limit_per_user gets USER_LIMIT_REACHED', async () => {
    await registerTicket(project, 'once', { limit_per_user: true, actions: [] });
    const user = await mintUser(project);
    const first = await call('POST', `/tpa/${project.service_id}/once`, { token: user.id_token, body: {} });
    expect(first.status).toBe(200);
    expect(first.json.tkid).toMatch(new RegExp(`#${user.user_id}$`));
    const second = await call('POST', `/tpa/${project.service_id}/once`, { headers: { authorization: user.id_token }, body: {} });
    expect(second.json).toMatchObject({ code: 'USER_LIMIT_REACHED', stage: 'ticket' });
  });

  it('the owner consuming on the signed-in route gets ISSUER_CANNOT_CONSUME', async () => {
    const res = await call('POST', `/tpa/${project.service_id}/plain`, { token: project.owner_key, body: {} });
    expect(res.json).toMatchObject({ code: 'ISSUER_CANNOT_CONSUME', stage: 'ticket' });
  });

  it('a missing token or a token of another project answers AUTH_REQUIRED', async () => {
    expect((await call('POST', `/tpa/${project.service_id}/plain`, { body: {} })).json).toMatchObject({ code: 'AUTH_REQUIRED' });
    const other = await createProject();
    const stranger = await mintUser(other);
    const res = await call('POST', `/tpa/${project.service_id}/plain`, { token: stranger.id_token, body: {} });
    expect(res.json).toMatchObject({ code: 'AUTH_REQUIRED', stage: 'ticket' });
  });

  it('a user condition on a webhook fails with AUTH_REQUIRED', async () => {
    await registerTicket(project, 'verified', { condition: { user: [{ key: 'email_verified', operator: '=', value: true }] }, actions: [] });
    expect((await tp('verified')).json).toMatchObject({ code: 'AUTH_REQUIRED', stage: 'condition' });
    const user = await mintUser(project, { attributes: { email_verified: true } });
    expect((await call('POST', `/tpa/${project.service_id}/verified`, { token: user.id_token, body: {} })).status).toBe(200);
  });

  it('the other method answers METHOD_NOT_ALLOWED', async () => {
    await registerTicket(project, 'postonly', { condition: { method: 'POST' }, actions: [] });
    expect((await call('GET', `/tg/${project.service_id}/postonly`)).json).toMatchObject({ code: 'METHOD_NOT_ALLOWED', stage: 'condition' });
  });

  it('return200 answers 200 with the error body, which still has stage', async () => {
    await registerTicket(project, 'quiet', { condition: { return200: true, body: [{ key: 'ok', operator: '=', value: true }] }, actions: [] });
    const res = await tp('quiet', { ok: false });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'body', keys: ['ok'] } });
  });

  it('the long forms behave as the short ones and check the owner id', async () => {
    await registerTicket(project, 'long', { actions: [] });
    expect((await call('POST', `/publ/consume/${project.service_id}/${project.owner_id}/long`, { body: {} })).status).toBe(200);
    expect((await call('GET', `/publ/consume/${project.service_id}/${project.owner_id}/long`)).status).toBe(200);
    const wrongOwner = await call('POST', `/publ/consume/${project.service_id}/00000000-0000-4000-8000-000000000000/long`, { body: {} });
    expect(wrongOwner.json).toMatchObject({ code: 'TICKET_NOT_FOUND' });
    const user = await mintUser(project);
    expect((await call('POST', `/auth/consume/${project.service_id}/${project.owner_id}/long`, { token: user.id_token, body: {} })).status).toBe(200);
  });
});

describe('dry run', () => {
  it('passes with the SUCCESS string, runs no action and never uses a count', async () => {
    await registerTicket(project, 'dry', { count: 1, condition: { body: [{ key: 'a', operator: '=', value: 1 }] }, actions: [] });
    for (let i = 0; i < 3; i++) {
      const res = await call('POST', `/publ/check/${project.service_id}/${project.owner_id}/dry`, { body: { a: 1 } });
      expect(res.status).toBe(200);
      expect(res.json).toBe('SUCCESS: Ticket check passed. No action taken.');
    }
    expect((await ticketStub(env, project.service_id, 'dry').status()).remaining).toBe(1);
  });

  it('fails with the same error a consumption would', async () => {
    const res = await call('POST', `/publ/check/${project.service_id}/${project.owner_id}/dry`, { body: { a: 2 } });
    expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'body', keys: ['a'] } });
  });

  it('is logged with the :CHK suffix, pass and failure', async () => {
    await registerTicket(project, 'drylog', { condition: { params: [{ key: 'p', placeholder: 'P' }] }, actions: [] });
    await call('GET', `/publ/check/${project.service_id}/${project.owner_id}/drylog?p=7`);
    const rows = await ticketStub(env, project.service_id, 'drylog').logEntries();
    expect(rows).toHaveLength(1);
    expect(rows[0].log_key).toMatch(/:CHK$/);
    expect(JSON.parse(rows[0].description)).toMatchObject({ check: true, placeholders: { P: 7 }, outcome: { ok: true } });
  });
});

describe('bad input never answers 500 and never consumes a count', () => {
  it('reads a non-JSON body as text', async () => {
    await registerTicket(project, 'text', { condition: { body: [{ key: '', operator: '>=', value: 'hello' }] }, actions: [] });
    const res = await call('POST', `/tp/${project.service_id}/text`, { raw: 'hello world', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(200);
  });

  it('compares header values holding control characters as they are, and answers a mismatch as CONDITION_FAILED', async () => {
    await registerTicket(project, 'controls', { count: 5, condition: { headers: [{ key: 'X-Tag', operator: '=', value: 'a\u0001b\u007f' }] }, actions: [] });
    const match = await call('POST', `/tp/${project.service_id}/controls`, { body: {}, headers: { 'x-tag': 'a\u0001b\u007f' } });
    const other = await call('POST', `/tp/${project.service_id}/controls`, { body: {}, headers: { 'x-tag': 'a\u0002b\u007f' } });
    expect(match.status).toBe(200);
    expect(other.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'headers', keys: ['X-Tag'] } });
    expect((await ticketStub(env, project.service_id, 'controls').status()).remaining).toBe(4);
  });

  it('reads invalid UTF-8 as text', async () => {
    await registerTicket(project, 'bytes', { count: 5, actions: [] });
    const res = await call('POST', `/tp/${project.service_id}/bytes`, { raw: new Uint8Array([0xff, 0xfe, 0x41]) });
    expect(res.status).toBe(200);
  });

  it('refuses an oversize body, thousands of query keys and deep JSON with INVALID_REQUEST', async () => {
    await registerTicket(project, 'guarded', { count: 3, actions: [] });
    const big = await call('POST', `/tp/${project.service_id}/guarded`, { raw: 'x'.repeat(1_100_000) });
    const keys = await call('POST', `/tp/${project.service_id}/guarded?${Array.from({ length: 2000 }, (_, i) => `k${i}=1`).join('&')}`, { body: {} });
    const deep = await call('POST', `/tp/${project.service_id}/guarded`, { raw: '['.repeat(10_000) + ']'.repeat(10_000) });
    for (const res of [big, keys, deep]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_REQUEST', stage: 'ticket' });
    }
    expect((await ticketStub(env, project.service_id, 'guarded').status()).remaining).toBe(3);
  });
});

describe('bodies without a declared length', () => {
  it('a streamed body over the limit is refused with INVALID_REQUEST and uses no count; one within it is read whole', async () => {
    const project = await createProject();
    await registerTicket(project, 'streamed', { count: 3, actions: [], condition: { body: [{ key: 'n', value: 1 }] } });
    const stream = (chunks: string[]) =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      });
    const send = (chunks: string[]) =>
      call('POST', `/tp/${project.service_id}/streamed`, { raw: stream(chunks), headers: { 'content-type': 'application/json' } });
    const big = await send(Array.from({ length: 20 }, () => 'x'.repeat(64 * 1024)));
    expect(big.status).toBe(400);
    expect(big.json).toMatchObject({ code: 'INVALID_REQUEST', stage: 'ticket' });
    expect((await send(['{"n"', ':1}'])).status).toBe(200);
    expect((await ticketStub(env, project.service_id, 'streamed').status()).remaining).toBe(2);
  });
});

describe('unexpected failures on the consume routes', () => {
  it('answer INTERNAL_ERROR with stage, so a client reads them as errors', async () => {
    const broken = await createProject();
    await env.DB.prepare("UPDATE projects SET identity = '{not json' WHERE service_id = ?").bind(broken.service_id).run();
    const res = await call('POST', `/tp/${broken.service_id}/anything`, { body: {} });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'ticket' });
  });
});
