import { describe, expect, it } from 'vitest';
import type { SignatureConfig, TicketCondition } from '../../schemas/ticket-types';
import type { ProjectUser } from '../platform/types';
import { evaluateCondition, type ConditionPorts } from './conditions';
import type { RequestSnapshot } from './snapshot';

const request = (overrides: Partial<RequestSnapshot> = {}): RequestSnapshot => ({
  method: 'POST',
  body: {},
  params: {},
  headers: {},
  ip: '203.0.113.7',
  user_agent: 'curl/8.0',
  ...overrides,
});

const user: ProjectUser = {
  user_id: 'u-1',
  email: 'ann@example.com',
  access_group: 3,
  attributes: { email_verified: true, plan: 'gold', email: 'spoofed@example.com' },
};

const signature: SignatureConfig = {
  secretName: 'HOOK',
  header: 'x-signature',
  algorithm: 'sha256',
  encoding: 'hex',
  parts: ['${signature}'],
  signed: '${body}',
  tolerance: 300,
  secret_encoding: 'raw',
};

/** Ports answering fixed verdicts and recording what they were asked. */
function ports(verdicts: { signature?: boolean | Error; recordAccess?: boolean } = {}) {
  const calls: string[] = [];
  const value: ConditionPorts = {
    async verifySignature(config) {
      calls.push(`signature:${config.secretName}`);
      if (verdicts.signature instanceof Error) throw verdicts.signature;
      return verdicts.signature ?? true;
    },
    async hasRecordAccess(recordId, who) {
      calls.push(`record:${recordId}:${who.user_id}`);
      return verdicts.recordAccess ?? true;
    },
  };
  return { calls, value };
}

const run = (condition: TicketCondition, req: RequestSnapshot = request(), p = ports()) => evaluateCondition(condition, req, p.value);

describe('empty or absent parts are not checked', () => {
  it('passes an empty condition and hands back body and params untouched', async () => {
    const req = request({ body: { a: 1 }, params: { q: 2 } });
    expect(await run({}, req)).toEqual({ ok: true, placeholders: {}, body: { a: 1 }, params: { q: 2 } });
  });

  it('ignores empty row lists and an ip part whose value is empty', async () => {
    const condition = { headers: [], body: [], params: [], user: [], ip: { operator: '=', value: [] } } as TicketCondition;
    expect((await run(condition)).ok).toBe(true);
  });

  it('ignores return200 (it never changes whether a condition fails)', async () => {
    expect(await run({ return200: true, method: 'GET' })).toMatchObject({ ok: false, code: 'METHOD_NOT_ALLOWED' });
    expect((await run({ return200: true })).ok).toBe(true);
  });
});

describe('method: the other method fails with METHOD_NOT_ALLOWED', () => {
  it('refuses a POST on a GET ticket and passes the named method', async () => {
    const result = await run({ method: 'GET' }, request({ method: 'POST' }));
    expect(result).toEqual({ ok: false, code: 'METHOD_NOT_ALLOWED', message: 'This ticket accepts only GET requests.' });
    expect((await run({ method: 'POST' }, request({ method: 'POST' }))).ok).toBe(true);
  });
});

describe('signature: a signature that does not verify fails with CONDITION_FAILED { field: signature }', () => {
  it('fails when the port says no', async () => {
    const p = ports({ signature: false });
    const result = await run({ signature }, request(), p);
    expect(result).toMatchObject({ ok: false, code: 'CONDITION_FAILED', detail: { field: 'signature' } });
    expect(p.calls).toEqual(['signature:HOOK']);
  });

  it('fails when verification throws (any reason)', async () => {
    const result = await run({ signature }, request(), ports({ signature: new Error('secret missing') }));
    expect(result).toMatchObject({ ok: false, code: 'CONDITION_FAILED', detail: { field: 'signature' } });
  });

  it('passes when the port verifies', async () => {
    expect((await run({ signature }, request(), ports({ signature: true }))).ok).toBe(true);
  });
});

describe('ip and user_agent: pass when the caller matches any listed value', () => {
  it('passes on any listed ip and fails otherwise with detail { field: ip, keys: [ip] }', async () => {
    expect((await run({ ip: { operator: '=', value: ['198.51.100.1', '203.0.113.7'] } })).ok).toBe(true);
    expect(await run({ ip: { operator: '=', value: '198.51.100.1' } })).toEqual({
      ok: false,
      code: 'CONDITION_FAILED',
      message: 'The request does not meet the condition on ip.',
      detail: { field: 'ip', keys: ['ip'] },
    });
  });

  it("'!=' passes only when the caller matches none of them", async () => {
    expect((await run({ ip: { operator: '!=', value: ['198.51.100.1'] } })).ok).toBe(true);
    expect((await run({ ip: { operator: 'ne', value: ['198.51.100.1', '203.0.113.7'] } })).ok).toBe(false);
  });

  it("'>=' on the ip is a prefix match", async () => {
    expect((await run({ ip: { operator: '>=', value: '203.0.113.' } })).ok).toBe(true);
  });

  it('checks the user agent the same way', async () => {
    expect((await run({ user_agent: { operator: '>=', value: ['curl/', 'Stripe/'] } })).ok).toBe(true);
    expect(await run({ user_agent: { operator: '=', value: 'Stripe/1.0' } })).toMatchObject({
      ok: false,
      detail: { field: 'user_agent', keys: ['user_agent'] },
    });
  });
});

describe('headers: every listed header must be sent and match', () => {
  it('compares header names case-insensitively', async () => {
    const req = request({ headers: { 'x-token': 'abc' } });
    expect((await run({ headers: [{ key: 'X-Token', operator: '=', value: 'abc' }] }, req)).ok).toBe(true);
  });

  it('treats rows on the same header as alternatives', async () => {
    const req = request({ headers: { 'x-env': 'staging' } });
    const headers = [
      { key: 'X-Env', operator: '=', value: 'prod' },
      { key: 'x-env', operator: '=', value: 'staging' },
    ] as TicketCondition['headers'];
    expect((await run({ headers }, req)).ok).toBe(true);
  });

  it('fails a header that was not sent, even with !=, and lists every failed header', async () => {
    const req = request({ headers: { 'x-a': '1' } });
    const headers = [
      { key: 'X-A', operator: '=', value: '2' },
      { key: 'X-B', operator: '!=', value: 'z' },
      { key: 'x-a', operator: '=', value: '3' },
    ] as TicketCondition['headers'];
    expect(await run({ headers }, req)).toEqual({
      ok: false,
      code: 'CONDITION_FAILED',
      message: 'The request does not meet the condition on headers: X-A, X-B.',
      detail: { field: 'headers', keys: ['X-A', 'X-B'] },
    });
  });

  it('compares header values as strings (a numeric-looking header is not a number)', async () => {
    const req = request({ headers: { 'x-count': '5' } });
    expect((await run({ headers: [{ key: 'x-count', operator: '=', value: '5' }] }, req)).ok).toBe(true);
    expect((await run({ headers: [{ key: 'x-count', operator: '>', value: '4' }] }, req)).ok).toBe(true);
  });
});

describe('body and params rows fail with CONDITION_FAILED { field, keys } listing every failed key', () => {
  it('reports every failed body key in one sentence', async () => {
    const req = request({ body: { order: { id: 1 }, qty: 0 } });
    const result = await run(
      {
        body: [
          { key: 'order[id]', operator: '=', value: 2 },
          { key: 'qty', operator: '>', value: 0 },
        ],
      },
      req,
    );
    expect(result).toEqual({
      ok: false,
      code: 'CONDITION_FAILED',
      message: 'The request does not meet the condition on body: order[id], qty.',
      detail: { field: 'body', keys: ['order[id]', 'qty'] },
    });
  });

  it('reads params rows against the JSON-parsed query string', async () => {
    const req = request({ method: 'GET', params: { qty: 2 } });
    expect((await run({ params: [{ key: 'qty', operator: '=', value: 2 }] }, req)).ok).toBe(true);
    expect(await run({ params: [{ key: 'qty', operator: '=', value: '2' }] }, req)).toMatchObject({
      detail: { field: 'params', keys: ['qty'] },
    });
  });

  it('returns placeholders of body and params rows and the replaced body and params', async () => {
    const req = request({ body: { status: 'new', id: 9 }, params: { ref: 'abc' } });
    const result = await run(
      {
        body: [
          { key: 'status', operator: '=', value: 'new', setValueWhenMatch: 'seen', placeholder: 'STATUS' },
          { key: 'id', placeholder: 'ID' },
        ],
        params: [{ key: 'ref', operator: '>=', value: 'a', setValueWhenMatch: 'x', placeholder: 'REF' }],
      },
      req,
    );
    expect(result).toEqual({
      ok: true,
      placeholders: { STATUS: 'seen', ID: 9, REF: 'x' },
      body: { status: 'seen', id: 9 },
      params: { ref: 'x' },
    });
    expect(req.body).toEqual({ status: 'new', id: 9 });
  });

  it('lets params placeholders overwrite body placeholders of the same name', async () => {
    const req = request({ body: { a: 1 }, params: { a: 2 } });
    const result = await run({ body: [{ key: 'a', placeholder: 'A' }], params: [{ key: 'a', placeholder: 'A' }] }, req);
    expect(result).toMatchObject({ ok: true, placeholders: { A: 2 } });
  });

  it('reads a non-JSON POST body as text with the empty key', async () => {
    const req = request({ body: 'hello world' });
    expect(await run({ body: [{ key: '', operator: '>=', value: 'hello', placeholder: 'RAW' }] }, req)).toMatchObject({
      ok: true,
      placeholders: { RAW: 'hello world' },
    });
  });
});

describe('user rows: signed requests only, against the user attributes plus user_id, email, access_group', () => {
  it('fails with AUTH_REQUIRED on a request without user', async () => {
    expect(await run({ user: [{ key: 'email_verified', operator: '=', value: true }] })).toEqual({
      ok: false,
      code: 'AUTH_REQUIRED',
      message: 'The condition on user needs a signed-in request.',
      detail: { field: 'user' },
    });
  });

  it('reads attributes, user_id, email and access_group', async () => {
    const condition: TicketCondition = {
      user: [
        { key: 'email_verified', operator: '=', value: true },
        { key: 'plan', operator: '=', value: ['gold', 'silver'] },
        { key: 'user_id', operator: '=', value: 'u-1' },
        { key: 'access_group', operator: '>=', value: 3 },
        { key: 'email', operator: '<=', value: '@example.com' },
      ],
    };
    expect((await run(condition, request({ user }))).ok).toBe(true);
  });

  it('lets the verified email win over an attribute of the same name', async () => {
    const condition: TicketCondition = { user: [{ key: 'email', operator: '=', value: 'spoofed@example.com' }] };
    expect(await run(condition, request({ user }))).toMatchObject({ ok: false, detail: { field: 'user', keys: ['email'] } });
  });

  it('fails with CONDITION_FAILED listing the user keys that failed', async () => {
    const condition: TicketCondition = {
      user: [
        { key: 'access_group', operator: '>', value: 5 },
        { key: 'missing_attr', operator: '!=', value: 'x' },
      ],
    };
    expect(await run(condition, request({ user }))).toMatchObject({
      ok: false,
      code: 'CONDITION_FAILED',
      detail: { field: 'user', keys: ['access_group', 'missing_attr'] },
    });
  });
});

describe('record_access: signed requests only, the user must have access to the record', () => {
  it('fails with AUTH_REQUIRED on a request without user and never asks the port', async () => {
    const p = ports();
    expect(await run({ record_access: 'rec-1' }, request(), p)).toMatchObject({
      ok: false,
      code: 'AUTH_REQUIRED',
      detail: { field: 'record_access' },
    });
    expect(p.calls).toEqual([]);
  });

  it('fails with CONDITION_FAILED { field: record_access } when the port says no', async () => {
    const p = ports({ recordAccess: false });
    expect(await run({ record_access: 'rec-1' }, request({ user }), p)).toMatchObject({
      ok: false,
      code: 'CONDITION_FAILED',
      detail: { field: 'record_access' },
    });
    expect(p.calls).toEqual(['record:rec-1:u-1']);
  });

  it('passes when the user has access', async () => {
    expect((await run({ record_access: 'rec-1' }, request({ user }), ports({ recordAccess: true }))).ok).toBe(true);
  });
});

describe('parts are evaluated in order and the first part that fails is reported', () => {
  const failingEverywhere: TicketCondition = {
    method: 'GET',
    signature,
    ip: { operator: '=', value: '0.0.0.0' },
    user_agent: { operator: '=', value: 'nope' },
    headers: [{ key: 'x-h', operator: '=', value: 'v' }],
    body: [{ key: 'b', operator: '=', value: 1 }],
    params: [{ key: 'p', operator: '=', value: 1 }],
    user: [{ key: 'u', operator: '=', value: 1 }],
    record_access: 'rec-1',
  };
  const order = ['method', 'signature', 'ip', 'user_agent', 'headers', 'body', 'params', 'user', 'record_access'] as const;

  it('reports method, signature, ip, user_agent, headers, body, params, user, record_access in that order', async () => {
    const reported: string[] = [];
    for (let i = 0; i < order.length; i++) {
      const condition = { ...failingEverywhere };
      for (const part of order.slice(0, i)) delete condition[part];
      const result = await run(condition, request({ method: 'POST', user }), ports({ signature: false, recordAccess: false }));
      if (result.ok) throw new Error('expected a failure');
      reported.push(result.code === 'METHOD_NOT_ALLOWED' ? 'method' : String(result.detail?.field));
    }
    expect(reported).toEqual([...order]);
  });

  it('does not consult later parts once one fails', async () => {
    const p = ports({ signature: false });
    await run({ method: 'GET', signature, record_access: 'r' }, request({ user }), p);
    expect(p.calls).toEqual([]);
    await run({ signature, record_access: 'r' }, request({ user }), p);
    expect(p.calls).toEqual(['signature:HOOK']);
  });

  it('reports AUTH_REQUIRED for user rows only after body and params passed', async () => {
    const condition: TicketCondition = {
      body: [{ key: 'b', operator: '=', value: 1 }],
      user: [{ key: 'u', operator: '=', value: 1 }],
    };
    expect(await run(condition, request({ body: {} }))).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'body' } });
    expect(await run(condition, request({ body: { b: 1 } }))).toMatchObject({ code: 'AUTH_REQUIRED' });
  });
});
