import { describe, expect, it } from 'vitest';
import { jsonRefusal, secureBody } from '../src/secure.js';
import { Svc } from '../src/index.js';
import { rejection } from './helpers/rejection.js';

const URL_A = 'https://api.example.com/a';

/** A client whose fetch counts what would have been sent (nothing must be). */
function countingClient(idToken: string | null = 'a-token') {
  const sent: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    sent.push(String(input));
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { svc: new Svc({ serviceId: 'abcd0123456789abcdef', baseUrl: 'https://svc.example.com', idToken, fetch }), sent };
}

describe('secureRequest params (spec 4.3)', () => {
  it('one request, an array, or FormData / a plain object that is the data with the url second', () => {
    expect(secureBody({ url: URL_A, data: { a: 1 }, sync: true })).toEqual({ url: URL_A, data: { a: 1 }, sync: true });
    expect(secureBody([{ url: URL_A }, { url: URL_A, sync: true }])).toEqual([{ url: URL_A }, { url: URL_A, sync: true }]);
    const form = new FormData();
    form.append('tag', 'a');
    form.append('tag', 'b');
    form.append('filter[status]', 'open');
    form.append('photo', new File(['x'], 'p.png'));
    expect(secureBody(form, URL_A)).toEqual({ url: URL_A, data: { tag: ['a', 'b'], filter: { status: 'open' } } });
    expect(secureBody({ q: 'otters', n: 2 }, URL_A)).toEqual({ url: URL_A, data: { q: 'otters', n: 2 } });
  });

  it.each([
    ['a submit event (an HTML form)', () => secureBody(new Event('submit')), /HTML forms are not accepted/],
    ['101 requests', () => secureBody(Array.from({ length: 101 }, () => ({ url: URL_A }))), /at most 50 requests in one call; this one has 101/],
    ['an empty array', () => secureBody([]), /empty array/],
    ['an array with a url second', () => secureBody([{ url: URL_A }], URL_A), /^url: not with an array/],
    ['FormData without a url', () => secureBody(new FormData()), /^url: required as the second argument/],
    ['a url that is not a string', () => secureBody({ url: 42 }), /^url: is required/],
    ['a missing url', () => secureBody({ data: 1 }), /^url: is required/],
    ['a url with CRLF', () => secureBody({ url: `${URL_A}\r\nx-injected: 1` }), /^url: holds a control character/],
    ['a javascript: url', () => secureBody({ url: 'javascript:alert(1)' }), /^url: must be an absolute http/],
    ['a javascript: url second', () => secureBody({ a: 1 }, 'javascript:alert(1)'), /^url: must be an absolute http/],
    ['data with a function', () => secureBody({ url: URL_A, data: { onDone: () => 1 } }), /^data\.onDone: must be JSON .* found a function/],
    ['data that is a function', () => secureBody({ url: URL_A, data: () => 1 }), /^data: must be JSON/],
    ['data with a bigint', () => secureBody({ url: URL_A, data: [1n] }), /^data\[0\]: must be JSON .* found a bigint/],
    ['data with NaN', () => secureBody({ url: URL_A, data: { n: Number.NaN } }), /^data\.n: .*NaN is not a finite number/],
    ['data with a Map', () => secureBody({ url: URL_A, data: new Map() }), /^data: must be JSON .* found a Map/],
    ['sync that is not a boolean', () => secureBody({ url: URL_A, sync: 'yes' }), /^sync: must be true or false/],
    ['an unknown key', () => secureBody({ url: URL_A, method: 'GET' }), /^method: unknown key; accepted keys: url, data, sync/],
    ['a bad request in an array', () => secureBody([{ url: URL_A }, { url: 'ftp://x' }]), /^\[1\]\.url: /],
    ['null', () => secureBody(null), /^params: must be a request/],
  ])('%s is INVALID_PARAMETER', (_what, call, message) => {
    let error: unknown;
    try {
      call();
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ name: 'SvcError', code: 'INVALID_PARAMETER' });
    expect((error as Error).message).toMatch(message);
  });

  it('data must be JSON: a cycle is refused; a Date (toJSON) and undefined members pass, as JSON.stringify writes them', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(jsonRefusal(cyclic, 'data')).toMatch(/^data\.self: refers back to itself/);
    const shared = { x: 1 };
    expect(jsonRefusal({ a: shared, b: shared, when: new Date(0), gone: undefined }, 'data')).toBeUndefined();
  });
});

describe('secureRequest sends nothing when it refuses', () => {
  it('refused params, and a signed-out client (AUTH_REQUIRED), never reach fetch', async () => {
    const { svc, sent } = countingClient();
    expect((await rejection(svc.secureRequest({ url: 'javascript:alert(1)' }))).code).toBe('INVALID_PARAMETER');
    expect((await rejection(svc.secureRequest(Array.from({ length: 100 }, () => ({ url: URL_A }))))).code).toBe('INVALID_PARAMETER');
    const signedOut = countingClient(null);
    const auth = await rejection(signedOut.svc.secureRequest({ url: URL_A }));
    expect(auth).toMatchObject({ code: 'AUTH_REQUIRED', message: expect.stringMatching(/signed-in user.*Nothing was sent/) });
    expect([...sent, ...signedOut.sent]).toEqual([]);
  });

  it('a submit event is refused and its default prevented, so the page stays with the error', async () => {
    const { svc, sent } = countingClient();
    const event = new Event('submit', { cancelable: true });
    expect((await rejection(svc.secureRequest(event as unknown as Record<string, unknown>, URL_A))).code).toBe('INVALID_PARAMETER');
    expect(event.defaultPrevented).toBe(true);
    expect(sent).toEqual([]);
  });
});
