/**
 * Idempotent consumption (extension, docs/api.md "Idempotent consumption"), through the real Worker and
 * the loopback destination: a second consumption with a key already run successfully answers the first
 * answer and runs nothing; after a failure it runs again; keys expire with their window.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ticketStub } from '../../src/platform/object-stubs';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';

const origin = inject('loopbackOrigin');
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

const byHeader = { key: '${headers[webhook-id]}' };
const tp = (ticketId: string, id: string | undefined, body: unknown = {}) =>
  call('POST', `/tp/${project.service_id}/${ticketId}`, { body, headers: { 'user-agent': 'idem', ...(id !== undefined ? { 'webhook-id': id } : {}) } });
const received = async (path: string): Promise<number> =>
  ((await (await fetch(`${origin}/received?path=${encodeURIComponent(path)}`)).json()) as { count: number }).count;
const remaining = async (ticketId: string) => (await ticketStub(env, project.service_id, ticketId).status()).remaining;
const logOf = (ticketId: string) => ticketStub(env, project.service_id, ticketId).logEntries();
const keyRows = (ticketId: string) =>
  runInDurableObject(ticketStub(env, project.service_id, ticketId), (_instance, state) =>
    state.storage.sql.exec<{ key: string; state: string; expires_at: number }>('SELECT key, state, expires_at FROM idempotency_keys').toArray(),
  );

describe('idempotent consumption', () => {
  it('a duplicate of a success answers the same receipt, runs nothing, takes no count and is logged as a duplicate of the first', async () => {
    const path = '/echo/idem-success';
    await registerTicket(project, 'idem-ok', { count: 5, idempotency: byHeader, actions: [{ act: 'req', exe: { url: `${origin}${path}` } }] });
    const first = await tp('idem-ok', 'evt-1');
    expect(first.status).toBe(200);
    const second = await tp('idem-ok', 'evt-1');
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(await received(path)).toBe(1);
    expect(await remaining('idem-ok')).toBe(4);
    const log = await logOf('idem-ok');
    expect(log).toHaveLength(2);
    const [firstRow, duplicate] = log;
    expect(JSON.parse(duplicate.description)).toMatchObject({ duplicate_of: firstRow.consume_id });
    expect(duplicate.failed).not.toBe(true);
  });

  it("a duplicate answers the first resp's status and body", async () => {
    await registerTicket(project, 'idem-resp', { idempotency: byHeader, actions: [{ act: 'resp', exe: { status: 202, body: { got: '${body[n]}' } } }] });
    const first = await tp('idem-resp', 'evt-r', { n: 'first' });
    expect(first).toMatchObject({ status: 202, json: { got: 'first' } });
    expect(await tp('idem-resp', 'evt-r', { n: 'second' })).toMatchObject({ status: 202, json: { got: 'first' } });
  });

  it('a duplicate of a success is answered even after that success took the last unit of the count', async () => {
    await registerTicket(project, 'idem-last', { count: 1, idempotency: byHeader, actions: [] });
    const first = await tp('idem-last', 'evt-last');
    expect((await tp('idem-last', 'evt-last')).json).toEqual(first.json);
    expect((await tp('idem-last', 'evt-other')).json).toMatchObject({ code: 'TICKET_EXHAUSTED' });
  });

  it('after a failure the same key runs again, and its success is what later duplicates answer', async () => {
    await registerTicket(project, 'idem-fail', {
      count: 5,
      idempotency: byHeader,
      actions: [{ act: 'req', exe: { url: `${origin}/echo-status/\${body[code]}` } }],
    });
    const failed = await tp('idem-fail', 'evt-f', { code: 503 });
    expect(failed.status).toBe(400);
    expect(await remaining('idem-fail')).toBe(5);
    const retried = await tp('idem-fail', 'evt-f', { code: 200 });
    expect(retried.status).toBe(200);
    expect(retried.json).toHaveProperty('tkid');
    expect((await tp('idem-fail', 'evt-f', { code: 503 })).json).toEqual(retried.json);
    expect(await remaining('idem-fail')).toBe(4);
  });

  it('a different key runs', async () => {
    const path = '/echo/idem-different';
    await registerTicket(project, 'idem-diff', { idempotency: byHeader, actions: [{ act: 'req', exe: { url: `${origin}${path}` } }] });
    const a = await tp('idem-diff', 'evt-a');
    const b = await tp('idem-diff', 'evt-b');
    expect(b.json.tkid).not.toBe(a.json.tkid);
    expect(await received(path)).toBe(2);
  });

  it('a key whose window ended runs again, and the expiry job removes the ended keys', async () => {
    await registerTicket(project, 'idem-window', { idempotency: { ...byHeader, window: '90s' }, actions: [] });
    const first = await tp('idem-window', 'evt-w');
    const [kept] = await keyRows('idem-window');
    expect(kept).toMatchObject({ key: 'evt-w', state: 'succeeded' });
    const stub = ticketStub(env, project.service_id, 'idem-window');
    expect((await stub.scheduledJobs()).some((job) => job.kind === 'expire-idempotency-keys')).toBe(true);
    // Move the stored expiry into the past instead of waiting 90 s.
    await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec('UPDATE idempotency_keys SET expires_at = 1'));
    const again = await tp('idem-window', 'evt-w');
    expect(again.status).toBe(200);
    expect(again.json.tkid).not.toBe(first.json.tkid);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec('UPDATE idempotency_keys SET expires_at = 1');
      state.storage.sql.exec("UPDATE jobs SET run_at = 1 WHERE kind = 'expire-idempotency-keys'");
    });
    await runDurableObjectAlarm(stub);
    expect(await keyRows('idem-window')).toEqual([]);
    expect((await stub.scheduledJobs()).some((job) => job.kind === 'expire-idempotency-keys')).toBe(false);
  });

  it('a key the request does not carry is PATH_NOT_FOUND naming the reference; nothing runs and nothing is counted', async () => {
    const path = '/echo/idem-missing';
    await registerTicket(project, 'idem-missing', { count: 3, idempotency: byHeader, actions: [{ act: 'req', exe: { url: `${origin}${path}` } }] });
    const res = await tp('idem-missing', undefined);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'PATH_NOT_FOUND', detail: { reference: '${headers[webhook-id]}' } });
    expect(await received(path)).toBe(0);
    expect(await remaining('idem-missing')).toBe(3);
  });

  it('a key that is not text or is over 256 characters is refused; nothing runs and nothing is counted', async () => {
    await registerTicket(project, 'idem-bad', { count: 3, idempotency: { key: '${body[id]}' }, actions: [] });
    for (const id of [42, { nested: true }, 'x'.repeat(257)]) {
      const res = await tp('idem-bad', undefined, { id });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { reference: '${body[id]}' } });
    }
    expect(await remaining('idem-bad')).toBe(3);
    expect(await keyRows('idem-bad')).toEqual([]);
  });

  it('while the first consumption with a key runs, a second answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After and runs nothing', async () => {
    await registerTicket(project, 'idem-busy', { idempotency: byHeader, actions: [{ act: 'req', exe: { url: `${origin}/delay/800/idem-busy` } }] });
    const first = tp('idem-busy', 'evt-busy');
    const stub = ticketStub(env, project.service_id, 'idem-busy');
    for (let i = 0; i < 100 && (await keyRows('idem-busy')).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const second = await tp('idem-busy', 'evt-busy');
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE', stage: 'ticket' });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await first).status).toBe(200);
    expect(await stub.status()).toMatchObject({ exists: true });
    const delays = (await (await fetch(`${origin}/delay-state/idem-busy`)).json()) as { arrived: number };
    expect(delays.arrived).toBe(1);
  });
});

const hmacHex = async (secret: string, text: string) => {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return Array.from(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text))), (b) => b.toString(16).padStart(2, '0')).join('');
};
const deliver = (ticketId: string, body: string, headers: Record<string, string>) =>
  call('POST', `/tp/${project.service_id}/${ticketId}`, { raw: body, headers: { 'content-type': 'application/json', 'user-agent': 'provider', ...headers } });

describe("a preset's provider event id as the default key", () => {
  it('github (a header source): a redelivery with the same X-GitHub-Delivery answers the first receipt and runs nothing', async () => {
    const path = '/echo/idem-github';
    await putSecret(project, 'idem_github', 'gh-secret');
    await registerTicket(project, 'idem-github', {
      condition: { preset: { id: 'github', secretName: 'idem_github' } },
      actions: [{ act: 'req', exe: { url: `${origin}${path}` } }],
    });
    const listed = await call('GET', `/v1/projects/${project.service_id}/tickets/idem-github`, { token: project.owner_key });
    expect(listed.json.idempotency).toEqual({ key: '${headers[X-GitHub-Delivery]}', window: '24h' });
    const body = JSON.stringify({ action: 'opened', number: 1 });
    const headers = { 'x-hub-signature-256': `sha256=${await hmacHex('gh-secret', body)}`, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
    const first = await deliver('idem-github', body, headers);
    expect(first.status).toBe(200);
    expect((await deliver('idem-github', body, headers)).json).toEqual(first.json);
    expect(await received(path)).toBe(1);
    const other = await deliver('idem-github', body, { ...headers, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-000000000000' });
    expect(other.json.tkid).not.toBe(first.json.tkid);
  });

  it('stripe (a body source): a redelivery of the same event id answers the first receipt; idempotency null opts out', async () => {
    await putSecret(project, 'idem_stripe', 'whsec_idem');
    const sign = async (body: string) => {
      const t = Math.floor(Date.now() / 1000);
      return { 'stripe-signature': `t=${t},v1=${await hmacHex('whsec_idem', `${t}.${body}`)}` };
    };
    const body = JSON.stringify({ id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy', type: 'invoice.paid' });
    await registerTicket(project, 'idem-stripe', { condition: { preset: { id: 'stripe', secretName: 'idem_stripe' } }, actions: [] });
    const first = await deliver('idem-stripe', body, await sign(body));
    expect(first.status).toBe(200);
    expect((await deliver('idem-stripe', body, await sign(body))).json).toEqual(first.json);

    await registerTicket(project, 'idem-stripe-off', { condition: { preset: { id: 'stripe', secretName: 'idem_stripe' } }, idempotency: null, actions: [] });
    const once = await deliver('idem-stripe-off', body, await sign(body));
    const twice = await deliver('idem-stripe-off', body, await sign(body));
    expect(twice.json.tkid).not.toBe(once.json.tkid);
  });
});

describe('the idempotency definition', () => {
  const put = (ticketId: string, body: unknown) => call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key, body });

  it("is listed with its window, '24h' when none was given, and the plan shows it", async () => {
    expect((await put('idem-def', { idempotency: byHeader, actions: [] })).status).toBe(201);
    const listed = await call('GET', `/v1/projects/${project.service_id}/tickets/idem-def`, { token: project.owner_key });
    expect(listed.json.idempotency).toEqual({ key: '${headers[webhook-id]}', window: '24h' });
    const plan = await call('POST', `/v1/projects/${project.service_id}/tickets/idem-def/plan`, {
      token: project.owner_key,
      body: { idempotency: { key: '${body[id]}', window: '7d' }, actions: [] },
    });
    expect(plan.json).toMatchObject({ current: { idempotency: { window: '24h' } }, proposed: { idempotency: { key: '${body[id]}', window: '7d' } } });
  });

  it('a window of 0, negative, over 7 days or garbage, and a key that is not one reference of the request or too long, are refused naming the field', async () => {
    const refusals: [unknown, string][] = [
      [{ ...byHeader, window: '0s' }, 'idempotency.window'],
      [{ ...byHeader, window: '-1h' }, 'idempotency.window'],
      [{ ...byHeader, window: '8d' }, 'idempotency.window'],
      [{ ...byHeader, window: 'tomorrow' }, 'idempotency.window'],
      [{ key: 'webhook-id' }, 'idempotency.key'],
      [{ key: '${ip}' }, 'idempotency.key'],
      [{ key: 'evt-${body[id]}' }, 'idempotency.key'],
      [{ key: `\${body[${'k'.repeat(300)}]}` }, 'idempotency.key'],
      [{ key: 3 }, 'idempotency.key'],
    ];
    for (const [idempotency, field] of refusals) {
      const res = await put('idem-refused', { idempotency, actions: [] });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field } });
    }
    expect((await call('GET', `/v1/projects/${project.service_id}/tickets/idem-refused`, { token: project.owner_key })).status).toBe(404);
  });
});
