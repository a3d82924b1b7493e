/**
 * secureRequest's bad input, each named after its rule: refused input answers its code before anything
 * is sent (the loopback counts arrivals by path); a request that fails once sent is a clear error, never
 * a 500 and never with the key in its text.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { received, uniquePath } from '../forward/support';
import { origin, secureRequest, setSecureKey } from './support';

const KEY = 'srk-refusals-9f3c';
let project: TestProject;
let user: { id_token: string };
let stranger: { id_token: string };

beforeAll(async () => {
  project = await createProject();
  await setSecureKey(project, KEY);
  user = await mintUser(project);
  stranger = await mintUser(await createProject());
});

afterEach(() => {
  env.ALLOW_PRIVATE_DESTINATIONS = 'true';
});

/** Sends `body(urls)` with fresh /echo paths; it must be refused as expected and nothing may arrive at any of them. */
async function expectRefused(
  body: (urls: string[]) => unknown,
  expected: { status: number; code: string; field?: string; message?: RegExp },
  /** null: no credential. */
  token: string | null = user.id_token,
) {
  const paths = [uniquePath('/echo'), uniquePath('/echo'), uniquePath('/echo')];
  const res = await secureRequest(project, body(paths.map((path) => `${origin}${path}`)), token ?? undefined);
  expect(res.status, res.text).toBe(expected.status);
  expect(res.json.code, res.text).toBe(expected.code);
  if (expected.field !== undefined) {
    expect(res.json.detail?.field).toBe(expected.field);
    expect(res.json.message).toContain(expected.field);
  }
  if (expected.message) expect(res.json.message).toMatch(expected.message);
  expect(res.text).not.toContain(KEY);
  for (const path of paths) expect(await received(path), path).toBe(0);
}

const invalid = (field: string, message?: RegExp) => ({ status: 400, code: 'INVALID_PARAMETER', field, message });

describe('who may call', () => {
  it('a signed-out caller is AUTH_REQUIRED (401) and nothing is sent', async () => {
    await expectRefused(([url]) => ({ url }), { status: 401, code: 'AUTH_REQUIRED', message: /signed-in user/ }, null);
  });

  it('the owner key is AUTH_REQUIRED (401): the owner is not a user of the project', async () => {
    await expectRefused(([url]) => ({ url }), { status: 401, code: 'AUTH_REQUIRED', message: /owner key is not a user/ }, project.owner_key);
  });

  it("an id token of another project's user, or a malformed one, is AUTH_REQUIRED (401)", async () => {
    await expectRefused(([url]) => ({ url }), { status: 401, code: 'AUTH_REQUIRED' }, stranger.id_token);
    await expectRefused(([url]) => ({ url }), { status: 401, code: 'AUTH_REQUIRED' }, 'not-a-token');
  });
});

describe('refused before anything is sent', () => {
  it('100 requests in one call are INVALID_PARAMETER (at most 50)', async () => {
    await expectRefused(
      ([a, b, c]) => Array.from({ length: 100 }, (_, i) => ({ url: [a, b, c][i % 3] })),
      invalid('body', /at most 50 requests in one call; this one has 100/),
    );
  });

  it('a private address is INVALID_REQUEST naming the url; every url is checked before any is sent', async () => {
    env.ALLOW_PRIVATE_DESTINATIONS = 'false';
    await expectRefused(([a, b]) => [{ url: a }, { url: b }], {
      status: 400,
      code: 'INVALID_REQUEST',
      field: '[0].url',
      message: /not a public address: 127\.0\.0\.1 is a loopback address/,
    });
    await expectRefused(([a]) => ({ url: a.replace('127.0.0.1', 'localhost') }), {
      status: 400,
      code: 'INVALID_REQUEST',
      field: 'url',
      message: /local-only name|not a public hostname/,
    });
  });

  it('an invalid url in the last request refuses the whole call: the requests before it are not sent', async () => {
    await expectRefused(
      ([a, b, c]) => [{ url: a }, { url: b }, { url: c.replace('http://', 'http://user:password@') }],
      invalid('[2].url', /user name or password/),
    );
    await expectRefused(([a, b]) => [{ url: a }, { url: b }, { url: 'javascript:alert(1)' }], invalid('[2].url', /absolute http/));
  });

  it.each([
    ['a url with CRLF (header injection)', (url: string) => ({ url: `${url}\r\nx-injected: 1` }), 'url', /control character/],
    ['a javascript: url', () => ({ url: 'javascript:alert(document.cookie)' }), 'url', /absolute http/],
    ['a data: url', () => ({ url: 'data:text/plain,hi' }), 'url', /absolute http/],
    ['a file: url', () => ({ url: 'file:///etc/passwd' }), 'url', /absolute http/],
    ['a relative url', () => ({ url: '/echo' }), 'url', /absolute http/],
    ['a url over 8 KiB', (url: string) => ({ url: `${url}?${'a'.repeat(8192)}` }), 'url', /at most 8192/],
    ['a url that is not a string', () => ({ url: 42 }), 'url', undefined],
    ['a missing url', () => ({ data: { a: 1 } }), 'url', /is required/],
    ['sync that is not a boolean', (url: string) => ({ url, sync: 'yes' }), 'sync', undefined],
    ['a key secureRequest does not take (headers)', (url: string) => ({ url, headers: { 'x-a': 'b' } }), 'headers', /accepted keys: url, data, sync/],
    ['an empty array', () => [], 'body', /empty array/],
    ['a JSON string body', (url: string) => url, 'body', /must be a request/],
    ['a request in an array that is not an object', (url: string) => [{ url }, 'x'], '[1]', undefined],
  ])('%s is INVALID_PARAMETER', async (_what, body, field, message) => {
    await expectRefused(([url]) => body(url), invalid(field, message));
  });

  it('a body that is not JSON is INVALID_PARAMETER body', async () => {
    const res = await secureRequest(project, undefined, user.id_token);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'body' } });
  });
});

describe('failures once sent: clear errors, never a 500, never the key', () => {
  it('a body that is not JSON is no failure: it is answered as its text', async () => {
    const res = await secureRequest(project, { url: `${origin}/sized/4` }, user.id_token);
    expect(res.json).toEqual({ response: 'xxxx', statusCode: 200, url: `${origin}/sized/4` });
  });

  it('an answer of 10 MB: a single request fails with REQUEST_FAILED (502) naming the 1 MiB limit, declared or streamed', async () => {
    for (const path of ['/sized/10000000', '/huge']) {
      const res = await secureRequest(project, { url: `${origin}${path}` }, user.id_token);
      expect(res.status, path).toBe(502);
      expect(res.json, path).toEqual({ code: 'REQUEST_FAILED', message: 'The response is larger than 1048576 bytes.' });
    }
  });

  it('in an array, the request whose answer is 10 MB answers its error in its place; the others answer', async () => {
    const res = await secureRequest(
      project,
      [{ url: `${origin}/sized/2` }, { url: `${origin}/sized/10000000` }, { url: `${origin}/echo-status/404` }],
      user.id_token,
    );
    expect(res.status).toBe(200);
    expect(res.json[0]).toEqual({ response: 'xx', statusCode: 200, url: `${origin}/sized/2` });
    expect(res.json[1]).toEqual({
      response: null,
      statusCode: 0,
      url: `${origin}/sized/10000000`,
      error: { code: 'REQUEST_FAILED', message: 'The response is larger than 1048576 bytes.' },
    });
    expect(res.json[2].statusCode).toBe(404);
    expect(res.text).not.toContain(KEY);
  });

  it('a call of 50 requests shares 8 MiB of answers: each may read 167,772 bytes', async () => {
    const res = await secureRequest(
      project,
      [{ url: `${origin}/sized/167772` }, { url: `${origin}/sized/167773` }, ...Array.from({ length: 48 }, () => ({ url: `${origin}/sized/1` }))],
      user.id_token,
    );
    expect(res.json[0].statusCode).toBe(200);
    expect(res.json[1].error).toEqual({ code: 'REQUEST_FAILED', message: 'The response is larger than 167772 bytes.' });
  });

  it('a destination that does not answer within the call limit is TIMEOUT (504); one nobody listens on is REQUEST_FAILED (502)', async () => {
    const stalled = await secureRequest(project, { url: `${origin}/stall` }, user.id_token);
    expect([stalled.status, stalled.json]).toEqual([504, { code: 'TIMEOUT', message: 'The request did not complete within its time limit.' }]);
    const refused = await secureRequest(project, { url: 'http://127.0.0.1:9/' }, user.id_token);
    expect([refused.status, refused.json]).toEqual([502, { code: 'REQUEST_FAILED', message: 'The destination could not be reached.' }]);
  });
});
