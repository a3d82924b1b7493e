import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlOf, forwardCurlOf, shellQuote } from '../../dashboard/src/logic/curl';
import { eventQuery, forwardEventQuery, NO_FILTERS, NO_FORWARD_FILTERS, splitSearch } from '../../dashboard/src/logic/event-query';
import { jsonTokens, prettyJson } from '../../dashboard/src/logic/json-highlight';
import { parseWherePath } from '../../schemas/log-search';
import type { LoggedRequest } from '../../schemas/listings';

// The event inspector's pure parts (dashboard/src/logic/, schemas/log-search.ts), in Node.

const request = (extra: Partial<LoggedRequest> = {}): LoggedRequest => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    authorization: '[redacted]',
    'stripe-signature': 't=1,v1=abc',
    host: 'svc.example',
    'cf-connecting-ip': '203.0.113.1',
  },
  search: '?a=1',
  url: 'https://svc.example/tp/s1/t1',
  body: { text: `{"note":"it's \\"quoted\\" $HOME \`x\`"}` },
  ip: '203.0.113.1',
  user_agent: 'ua',
  signed_route: false,
  long_form: false,
  received_at: 1,
  ...extra,
});

describe('the JSON tokenizer of the inspector', () => {
  it('gives back the exact text, keys told from strings, and markup as plain text tokens', () => {
    const text = prettyJson({ '<b>k</b>': '<img src=x onerror=alert(1)>', n: -1.5e3, ok: true, none: null, list: [1, 'two'] });
    const tokens = jsonTokens(text);
    expect(tokens.map((t) => t.text).join('')).toBe(text);
    expect(tokens.find((t) => t.kind === 'key')?.text).toBe('"<b>k</b>"');
    expect(tokens.filter((t) => t.kind === 'string').map((t) => t.text)).toContain('"<img src=x onerror=alert(1)>"');
    expect(tokens.filter((t) => t.kind === 'number').map((t) => t.text)).toEqual(['-1500', '1']);
    expect(tokens.filter((t) => t.kind === 'literal').map((t) => t.text)).toEqual(['true', 'null']);
  });

  it('answers text that is not JSON as one plain token', () => {
    expect(jsonTokens('<script>alert(1)</script>')).toEqual([{ kind: 'plain', text: '<script>alert(1)</script>' }]);
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
  });
});

describe('copy as curl', () => {
  it('leaves redacted credentials out and names them, and drops the hop headers', () => {
    const command = curlOf(request(), 'https://unused.example');
    expect(command.split('\n')[0]).toBe('# Left out: authorization.');
    expect(command).not.toContain('[redacted]');
    expect(command).not.toContain('host:');
    expect(command).not.toContain('cf-connecting-ip');
    expect(command).toContain("-H 'stripe-signature: t=1,v1=abc'");
    expect(command).toContain("curl -X POST 'https://svc.example/tp/s1/t1?a=1'");
  });

  it('quotes every value so a shell reads the body back byte for byte', () => {
    const body = (request().body as { text: string }).text;
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(body)}`]).toString()).toBe(body);
  });

  it('names a body it could not keep instead of sending another', () => {
    expect(curlOf(request({ body: { omitted_bytes: 70_000 } }), 'x')).toContain('# Left out: authorization, the body (70000 bytes, not kept).');
  });

  it('keeps the $CLIENT_SECRET placeholder of a forwarded request single-quoted, never a value', () => {
    const command = forwardCurlOf({
      method: 'POST',
      url: 'https://api.example/x?k=$CLIENT_SECRET',
      request_headers: { 'x-key': '$CLIENT_SECRET', authorization: '[redacted]' },
      request_body: { a: 1 },
    });
    expect(command).toContain("'https://api.example/x?k=$CLIENT_SECRET'");
    expect(command).toContain('# $CLIENT_SECRET stands for the Secret Key, which is never shown.');
    expect(command).toContain('# Left out: authorization.');
    expect(command).toContain(`--data-raw '{"a":1}'`);
  });
});

describe('the search form as a query', () => {
  it('splits "path = value" at the first =, the value keeping the rest', () => {
    expect(splitSearch('body.data.object.id = pi_123')).toEqual({ where: 'body.data.object.id', equals: 'pi_123' });
    expect(splitSearch('headers.x = a=b')).toEqual({ where: 'headers.x', equals: 'a=b' });
    expect(splitSearch('body.x')).toBeUndefined();
  });

  it('sends every filter to the server and leaves empty ones out', () => {
    const q = new URLSearchParams(eventQuery({ ...NO_FILTERS, outcome: 'failed', code: 'ACTION_FAILED', search: 'body.a = 1' }, 25, 'key1'));
    expect(Object.fromEntries(q)).toEqual({ limit: '25', outcome: 'failed', code: 'ACTION_FAILED', where: 'body.a', equals: '1', startKey: 'key1' });
    expect(Object.fromEntries(new URLSearchParams(forwardEventQuery({ ...NO_FORWARD_FILTERS, status_class: '5xx' }, 25, null)))).toEqual({
      limit: '25',
      status_class: '5xx',
    });
  });
});

describe('the where grammar', () => {
  it('reads body paths, a header or a query name, and refuses anything that escapes', () => {
    expect(parseWherePath('body.data.object.id')).toEqual({ root: 'body', segments: ['data', 'object', 'id'] });
    expect(parseWherePath('headers.X-Delivery')).toEqual({ root: 'headers', segments: ['X-Delivery'] });
    for (const bad of ['body', 'body..a', 'body.__proto__', 'body.constructor', 'body["a"]', 'body.$x', 'headers.a.b', 'other.a', `body.${'a.'.repeat(10)}a`])
      expect(typeof parseWherePath(bad), bad).toBe('string');
  });
});
