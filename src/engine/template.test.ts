import { describe, expect, it } from 'vitest';
import type { ActionContext } from './context';
import { ActionError } from '../wire/errors';
import { TemplateSyntaxError } from '../../schemas/references';
import { renderString, renderValue, type TemplateScope } from './template';

const ctx: ActionContext = {
  body: { order: { id: 7, items: ['a', 'b'], paid: true, note: null }, name: 'Ann' },
  params: { qty: 2, q: 'x y' },
  headers: { 'content-type': 'application/json', authorization: 'Bearer secret', cookie: 'sid=1', 'x-id': 'abc' },
  placeholders: { GROUP: 5, EMPTY: '' },
  ip: '203.0.113.9',
  user_agent: 'agent/1',
  method: 'POST',
  ticket: { id: 't1', service: 'svc', owner: 'owner-1', consume_id: 'c1', timestamp: 1000, hash: 'h' },
};
const signedIn: ActionContext = { ...ctx, user: { user_id: 'u1', email: 'u@example.com', access_group: 3, plan: 'gold' }, record_access: 'rec-1' };
const scope: TemplateScope = { ctx };

function failure(run: () => unknown): ActionError {
  try {
    run();
  } catch (err) {
    if (err instanceof ActionError) return err;
    throw err;
  }
  throw new Error('expected an ActionError');
}

describe('run-time templating', () => {
  it('a string that is exactly one reference keeps the value type', () => {
    expect(renderString('${body[order][id]}', scope)).toBe(7);
    expect(renderString('${body[order][paid]}', scope)).toBe(true);
    expect(renderString('${body[order][note]}', scope)).toBeNull();
    expect(renderString('${body[order]}', scope)).toEqual({ id: 7, items: ['a', 'b'], paid: true, note: null });
    expect(renderString('${params[qty]}', scope)).toBe(2);
  });

  it('inside longer text a value becomes text, objects as compact JSON', () => {
    expect(renderString('id=${body[order][id]}', scope)).toBe('id=7');
    expect(renderString('${body[order][items]}!', scope)).toBe('["a","b"]!');
    expect(renderString('n:${body[order][note]} p:${body[order][paid]}', scope)).toBe('n:null p:true');
    expect(renderString('hi ${body[name]}', scope)).toBe('hi Ann');
  });

  it('text outside ${ } is literal and $${...} writes a literal ${...}', () => {
    expect(renderString('price $5 {x}', scope)).toBe('price $5 {x}');
    expect(renderString('$${body[name]} is ${body[name]}', scope)).toBe('${body[name]} is Ann');
    expect(renderString('$${body[name]}', scope)).toBe('${body[name]}');
  });

  it('every string at any depth is templated and object keys are not', () => {
    const value = { '${body[name]}': ['${ip}', { deep: '${method}' }], n: 1, b: false, z: null };
    expect(renderValue(value, scope)).toEqual({ '${body[name]}': ['203.0.113.9', { deep: 'POST' }], n: 1, b: false, z: null });
  });

  it('templating never changes the stored value', () => {
    const value = { a: ['${ip}'] };
    renderValue(value, scope);
    expect(value).toEqual({ a: ['${ip}'] });
  });

  it('headers are read case-insensitively and authorization and cookie read <redacted>', () => {
    expect(renderString('${headers[Content-Type]}', scope)).toBe('application/json');
    expect(renderString('${headers[Authorization]}', scope)).toBe('<redacted>');
    expect(renderString('c=${headers[cookie]}', scope)).toBe('c=<redacted>');
  });

  it('ip, user_agent, method and the ticket references resolve', () => {
    expect(renderString('${ip} ${user_agent} ${method}', scope)).toBe('203.0.113.9 agent/1 POST');
    expect(renderString('${ticket}', scope)).toEqual(ctx.ticket);
    for (const key of ['id', 'service', 'owner', 'consume_id', 'timestamp', 'hash'] as const) {
      expect(renderString(`\${ticket[${key}]}`, scope)).toBe(ctx.ticket[key]);
    }
  });

  it('placeholders resolve and a placeholder never captured fails with PLACEHOLDER_MISSING', () => {
    expect(renderString('${placeholder[GROUP]}', scope)).toBe(5);
    expect(renderString('[${placeholder[EMPTY]}]', scope)).toBe('[]');
    const err = failure(() => renderString('${placeholder[NOPE]}', scope));
    expect(err.code).toBe('PLACEHOLDER_MISSING');
    expect(err.detail).toEqual({ placeholder: 'NOPE' });
  });

  it('a path that does not resolve fails with PATH_NOT_FOUND', () => {
    for (const text of ['${body[missing]}', 'x ${body[order][id][deeper]}', '${params[nope]}', '${headers[x-none]}', '${body[order][items][5]}']) {
      expect(failure(() => renderString(text, scope)).code).toBe('PATH_NOT_FOUND');
    }
  });

  it('${user} and ${record_access} on a request that is not signed in fail with AUTH_REQUIRED', () => {
    expect(failure(() => renderString('${user[email]}', scope)).code).toBe('AUTH_REQUIRED');
    expect(failure(() => renderString('${user}', scope)).code).toBe('AUTH_REQUIRED');
    expect(failure(() => renderString('${record_access}', scope)).code).toBe('AUTH_REQUIRED');
  });

  it('${user} and ${record_access} resolve on a signed-in request', () => {
    const signed = { ctx: signedIn };
    expect(renderString('${user[email]}', signed)).toBe('u@example.com');
    expect(renderString('${user[access_group]}', signed)).toBe(3);
    expect(renderString('${user[plan]}', signed)).toBe('gold');
    expect(renderString('${record_access}', signed)).toBe('rec-1');
    expect(failure(() => renderString('${user[nope]}', signed)).code).toBe('PATH_NOT_FOUND');
  });

  it('${response} reads the answer of the enclosing action in a Then chain', () => {
    const then: TemplateScope = { ctx, response: { value: { status: 200, headers: { 'content-type': 'text/plain' }, body: { key: 'v' } } } };
    expect(renderString('${response[status]}', then)).toBe(200);
    expect(renderString('${response[body][key]}', then)).toBe('v');
    expect(renderString('${response[headers][content-type]}', then)).toBe('text/plain');
    expect(renderString('${response}', { ctx, response: { value: 'SUCCESS: done' } })).toBe('SUCCESS: done');
    expect(failure(() => renderString('${response[body][nope]}', then)).code).toBe('PATH_NOT_FOUND');
    expect(failure(() => renderString('${response}', scope)).code).toBe('PATH_NOT_FOUND');
  });

  it('${error} reads code, message, detail, action and path in an err chain', () => {
    const error = { code: 'REQUEST_FAILED', message: 'm', detail: { status: 500 }, action: 'req', path: 'actions[1]' };
    const err: TemplateScope = { ctx, error };
    expect(renderString('${error}', err)).toEqual(error);
    expect(renderString('${error[code]} at ${error[path]} (${error[action]})', err)).toBe('REQUEST_FAILED at actions[1] (req)');
    expect(renderString('${error[detail][status]}', err)).toBe(500);
    expect(failure(() => renderString('${error[code]}', scope)).code).toBe('PATH_NOT_FOUND');
  });

  it('encode applies to each inserted text only, never to the literal text', () => {
    const encode = encodeURIComponent;
    expect(renderString('https://x.test/a b?q=${params[q]}&n=${body[name]}', scope, { encode })).toBe('https://x.test/a b?q=x%20y&n=Ann');
    expect(renderString('${params[q]}', scope, { encode })).toBe('x y');
  });

  it('keepClientSecret leaves ${CLIENT_SECRET} as written', () => {
    expect(renderString('Bearer ${CLIENT_SECRET}', scope, { keepClientSecret: true })).toBe('Bearer ${CLIENT_SECRET}');
    expect(renderValue({ key: '${CLIENT_SECRET}' }, scope, { keepClientSecret: true })).toEqual({ key: '${CLIENT_SECRET}' });
    expect(failure(() => renderString('Bearer ${CLIENT_SECRET}', scope)).code).toBe('INTERNAL_ERROR');
  });

  it('with keepClientSecret a value brought in by a reference cannot carry ${CLIENT_SECRET}', () => {
    const injected: TemplateScope = { ctx: { ...ctx, body: { evil: 'x ${CLIENT_SECRET}', nested: { list: ['${CLIENT_SECRET}'] } } } };
    expect(failure(() => renderString('v=${body[evil]}', injected, { keepClientSecret: true })).code).toBe('ACTION_FORBIDDEN');
    expect(failure(() => renderString('${body[nested]}', injected, { keepClientSecret: true })).code).toBe('ACTION_FORBIDDEN');
    expect(failure(() => renderString('$${CLIENT_SECRET}', scope, { keepClientSecret: true })).code).toBe('ACTION_FORBIDDEN');
    // Without the option such text is plain data.
    expect(renderString('v=${body[evil]}', injected)).toBe('v=x ${CLIENT_SECRET}');
  });
});

describe('a stored template that cannot be read', () => {
  it('fails the action with INTERNAL_ERROR and keeps the syntax error as cause', () => {
    const err = failure(() => renderString('total ${body[order', scope));
    expect(err.code).toBe('INTERNAL_ERROR');
    expect(err.message).toMatch(/^A stored template cannot be read: /);
    expect(err.cause).toBeInstanceOf(TemplateSyntaxError);
  });
});
