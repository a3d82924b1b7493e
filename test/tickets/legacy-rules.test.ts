/**
 * Spec 9.2: a ticket imported under the previous rules runs by them until it is registered again.
 * Each difference is shown both ways: the same definition registered (current rules) and imported
 * (legacy), consumed with the same request.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createProject, mintUser, putSecret, registerTicket, type TestProject } from '../helpers/api';

let project: TestProject;
const loopback = () => inject('loopbackOrigin');

beforeAll(async () => {
  project = await createProject();
});

async function importLegacy(ticketId: string, ticket: Record<string, unknown>) {
  const res = await call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}/legacy`, { token: project.owner_key, body: ticket });
  if (res.status !== 200 && res.status !== 201) throw new Error(`import failed: ${res.status} ${res.text}`);
  return res.json;
}

/** Registers the definition as `<name>-cur` and imports it as `<name>-old`. */
async function bothWays(name: string, ticket: Record<string, unknown>) {
  await registerTicket(project, `${name}-cur`, ticket);
  await importLegacy(`${name}-old`, ticket);
}

const visitor = { 'cf-connecting-ip': '203.0.113.40', 'user-agent': 'legacy-test' };
const tp = (ticket: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/tp/${project.service_id}/${ticket}`, { body, headers: { ...visitor, ...headers } });

describe('a missing field is an error under the previous rules, a mismatch under the current ones', () => {
  it('a row comparing with undefined passes on a missing field now, and fails the legacy ticket with PATH_NOT_FOUND', async () => {
    await bothWays('missing', { condition: { body: [{ key: 'coupon', operator: '=' }] }, actions: [] });
    const current = await tp('missing-cur', { amount: 1 });
    expect(current.status).toBe(200);
    expect(current.json).toHaveProperty('tkid');
    const legacy = await tp('missing-old', { amount: 1 });
    expect(legacy.status).toBe(400);
    expect(legacy.text).toBe("PATH_NOT_FOUND: The request has no body field 'coupon'.");
  });
});

describe("'<=' on two strings", () => {
  it('is ends-with now and plain lexicographic order under the previous rules', async () => {
    await bothWays('lte', { condition: { body: [{ key: 'name', operator: '<=', value: 'son' }] }, actions: [] });
    expect((await tp('lte-cur', { name: 'zorson' })).status).toBe(200);
    const legacy = await tp('lte-old', { name: 'zorson' });
    expect(legacy.status).toBe(400);
    expect(legacy.text).toBe('CONDITION_FAILED: The request does not meet the condition on body: name.');
    // 'abc' <= 'son' in code-unit order, and it does not end with 'son'.
    expect((await tp('lte-old', { name: 'abc' })).status).toBe(200);
    expect((await tp('lte-cur', { name: 'abc' })).status).toBe(400);
  });
});

describe("'=' compares strictly now and loosely under the previous rules", () => {
  it("the text '10' equals the number 10 only on the legacy ticket", async () => {
    await bothWays('loose', { condition: { body: [{ key: 'amount', operator: '=', value: 10 }] }, actions: [] });
    expect((await tp('loose-cur', { amount: '10' })).json).toMatchObject({ code: 'CONDITION_FAILED' });
    expect((await tp('loose-old', { amount: '10' })).status).toBe(200);
    expect((await tp('loose-old', { amount: '10.5' })).status).toBe(400);
  });
});

describe('header names', () => {
  it('are case-insensitive now; under the previous rules a name matches only as the request carries it (lowercase)', async () => {
    await bothWays('hdr', { condition: { headers: [{ key: 'X-Event', operator: '=', value: 'paid' }] }, actions: [] });
    expect((await tp('hdr-cur', {}, { 'x-event': 'paid' })).status).toBe(200);
    const legacy = await tp('hdr-old', {}, { 'x-event': 'paid' });
    expect(legacy.status).toBe(400);
    expect(legacy.text).toBe("PATH_NOT_FOUND: The request has no headers field 'X-Event'.");
    await importLegacy('hdr-lower-old', { condition: { headers: [{ key: 'x-event', operator: '=', value: 'paid' }] }, actions: [] });
    expect((await tp('hdr-lower-old', {}, { 'X-Event': 'paid' })).status).toBe(200);
  });
});

describe('list values', () => {
  it('pass on any member now; under the previous rules a list is one value', async () => {
    await bothWays('list', { condition: { body: [{ key: 'plan', operator: '=', value: ['pro', 'team'] }] }, actions: [] });
    expect((await tp('list-cur', { plan: 'team' })).status).toBe(200);
    expect((await tp('list-old', { plan: 'team' })).status).toBe(400);
    expect((await tp('list-old', { plan: ['pro', 'team'] })).status).toBe(200);
  });
});

describe('query values', () => {
  it('are JSON-parsed now and kept as strings under the previous rules', async () => {
    await bothWays('query', { condition: { method: 'GET' }, actions: [{ act: 'resp', exe: { body: { qty: '${params[qty]}', on: '${params[on]}' } } }] });
    const current = await call('GET', `/tg/${project.service_id}/query-cur?qty=2&on=true`, { headers: visitor });
    expect(current.json).toEqual({ qty: 2, on: true });
    const legacy = await call('GET', `/tg/${project.service_id}/query-old?qty=2&on=true`, { headers: visitor });
    expect(legacy.json).toEqual({ qty: '2', on: 'true' });
  });
});

describe('record_access', () => {
  it('is checked now and not checked under the previous rules', async () => {
    const user = await mintUser(project, { email: 'legacy-reader@example.com' });
    await bothWays('rec', { condition: { record_access: 'no-such-record' }, actions: [{ act: 'resp', exe: { body: { record: '${record_access}' } } }] });
    const signed = (ticket: string) => call('POST', `/tpa/${project.service_id}/${ticket}`, { token: user.id_token, body: {} });
    expect((await signed('rec-cur')).json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'record_access' } });
    const legacy = await signed('rec-old');
    expect(legacy.status).toBe(200);
    expect(legacy.json).toEqual({ record: 'no-such-record' });
  });
});

describe('placeholders', () => {
  const ticket = { condition: { body: [{ key: 'id', placeholder: 'ID' }] }, actions: [{ act: 'resp', exe: { body: { id: '${placeholder[ID]}' } } }] };

  it('are captured on every route now; a legacy ticket captures them on the long-form routes only', async () => {
    await bothWays('ph', ticket);
    expect((await tp('ph-cur', { id: 'order-7' })).json).toEqual({ id: 'order-7' });
    const short = await tp('ph-old', { id: 'order-7' });
    expect(short.status).toBe(400);
    expect(short.text).toMatch(/^PLACEHOLDER_MISSING: /);
    const long = await call('POST', `/publ/consume/${project.service_id}/${project.owner_id}/ph-old`, { body: { id: 'order-7' }, headers: visitor });
    expect(long.json).toEqual({ id: 'order-7' });
  });
});

describe('failures are answered as plain text under the previous rules', () => {
  it("answer '<CODE>: <message>' with 400, and 200 with return200, where the current rules answer the JSON error body", async () => {
    const ticket = { condition: { return200: true, body: [{ key: 'kind', operator: '=', value: 'paid' }] }, actions: [] };
    await bothWays('r200', ticket);
    const current = await tp('r200-cur', { kind: 'refund' });
    expect(current.status).toBe(200);
    expect(current.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition' });
    const legacy = await tp('r200-old', { kind: 'refund' });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(legacy.text).toBe('CONDITION_FAILED: The request does not meet the condition on body: kind.');
  });

  it("an unexpected error answers 500 'Internal server error' as text on a legacy ticket and the JSON body on a current one", async () => {
    await putSecret(project, 'broken-key', 'value-1');
    await bothWays('crash', {
      actions: [{ act: 'req', exe: { url: `${loopback()}/echo`, method: 'POST', secretName: 'broken-key', headers: { 'x-api-key': '${CLIENT_SECRET}' } } }],
    });
    await env.DB.prepare("UPDATE secret_keys SET value_enc = 'not-a-ciphertext' WHERE service_id = ? AND name = 'broken-key'").bind(project.service_id).run();
    const current = await tp('crash-cur', {});
    expect(current.status).toBe(400);
    expect(current.json).toMatchObject({ code: 'INTERNAL_ERROR', stage: 'action' });
    const legacy = await tp('crash-old', {});
    expect(legacy.status).toBe(500);
    expect(legacy.text).toBe('Internal server error');
  });

  it('a dry run of a legacy ticket answers its failure as text too, and its pass as the JSON string', async () => {
    await importLegacy('check-old', { condition: { body: [{ key: 'kind', operator: '=', value: 'paid' }] }, actions: [] });
    const check = (body: unknown) => call('POST', `/publ/check/${project.service_id}/${project.owner_id}/check-old`, { body, headers: visitor });
    expect((await check({ kind: 'paid' })).json).toBe('SUCCESS: Ticket check passed. No action taken.');
    expect((await check({ kind: 'refund' })).text).toBe('CONDITION_FAILED: The request does not meet the condition on body: kind.');
  });
});

describe('the check-time request condition', () => {
  const withRequest = () => ({
    condition: {
      request: { url: `${loopback()}/echo`, params: { step: '${body[step]}' }, condition: [{ key: 'query', operator: '=', value: '?step=go' }] },
    },
    actions: [{ act: 'resp', exe: { body: { ran: true } } }],
  });

  it('runs before the actions of a legacy ticket and its rows judge the answer', async () => {
    await importLegacy('request-old', withRequest());
    expect((await tp('request-old', { step: 'go' })).json).toEqual({ ran: true });
    const stopped = await tp('request-old', { step: 'stop' });
    expect(stopped.status).toBe(400);
    expect(stopped.text).toBe('CONDITION_FAILED: The request does not meet the condition on request: query.');
  });

  it('is refused by the current registration with the fix', async () => {
    const res = await call('PUT', `/v1/projects/${project.service_id}/tickets/request-cur`, { token: project.owner_key, body: withRequest() });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: expect.stringContaining('condition.request: the check-time request condition was removed'),
    });
  });

  it('a check-time request that fails answers its REQUEST_FAILED as text', async () => {
    await importLegacy('request-down-old', { condition: { request: { url: `${loopback()}/status/503` } }, actions: [] });
    const res = await tp('request-down-old', {});
    expect(res.status).toBe(400);
    expect(res.text).toBe('REQUEST_FAILED: The check-time request failed: The destination answered with status 503.');
  });
});

describe('a ticket without rules_version answers a req action with its body alone', () => {
  const ticket = (version?: number) => ({
    ...(version ? { rules_version: version } : {}),
    actions: [
      {
        act: 'req',
        exe: {
          url: `${loopback()}/echo`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          data: { n: 7 },
          actions: [{ act: 'resp', exe: { body: { method: '${response[method]}' } } }],
        },
      },
    ],
  });

  it('its Then chain reads ${response[key]} on the body; with rules_version 2 the same reference reads the whole response', async () => {
    await importLegacy('answer-old', ticket());
    expect((await tp('answer-old', {})).json).toEqual({ method: 'POST' });
    await importLegacy('answer-v2-old', ticket(2));
    const whole = await tp('answer-v2-old', {});
    expect(whole.status).toBe(400);
    expect(whole.text).toMatch(/^PATH_NOT_FOUND: /);
  });
});
