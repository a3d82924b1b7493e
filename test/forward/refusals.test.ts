/**
 * Every refusal of a dispatch answers its documented code before anything is sent: nothing arrives at the
 * destination (the loopback server counts by path) and nothing is stored (no history row, no rate count).
 */
import { historyOf } from './history-store';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORWARD_URL, MAX_MULTIPART_CHARS } from '../../schemas/forward-rules';
import { call, createProject, mintUser, putSecret, type TestProject } from '../helpers/api';
import { forward, origin, received, uniquePath } from './support';

let project: TestProject;
let member: { id_token: string };
let senior: { id_token: string };

beforeAll(async () => {
  project = await createProject();
  [member, senior] = await Promise.all([mintUser(project, { access_group: 3 }), mintUser(project, { access_group: 7 })]);
  await putSecret(project, 'open', 'sk_open_value');
  await putSecret(project, 'locked', 'sk_locked_value', { locked: true, access_group: 5 });
  await putSecret(project, 'narrow', 'sk_narrow_value', { destinations: [`${origin}/echo/allowed`] });
});

afterEach(() => {
  env.ALLOW_PRIVATE_DESTINATIONS = 'true';
});

/** Rows stored for requests to this path (other tests' requests may still be landing), and rate counters. */
async function storedRows(path: string): Promise<number> {
  const { results: requests } = await historyOf(project.service_id)
    .prepare("SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND url LIKE '%' || ?")
    .bind(project.service_id, path)
    .all<{ n: number }>();
  const rates = await env.DB.prepare('SELECT COUNT(*) AS n FROM forward_rate WHERE service_id = ?').bind(project.service_id).first<{ n: number }>();
  return requests.reduce((sum, row) => sum + row.n, 0) + rates!.n;
}

/** Sends the dispatch (direct and queued) to a fresh /echo path; both must be refused as `expected`, nothing sent or stored. */
async function expectRefused(
  body: (url: string) => Record<string, unknown>,
  expected: { status: number; code: string; message?: string | RegExp },
  token?: string,
) {
  const path = uniquePath('/echo');
  for (const queue of [undefined, 'q']) {
    const res = await forward(project, { ...body(`${origin}${path}`), ...(queue ? { queue } : {}) }, token ? { token } : {});
    expect(res.status, res.text).toBe(expected.status);
    expect(res.json.code, res.text).toBe(expected.code);
    if (typeof expected.message === 'string') expect(res.json.message).toBe(expected.message);
    else if (expected.message) expect(res.json.message).toMatch(expected.message);
  }
  expect(await received(path)).toBe(0);
  expect(await storedRows(path)).toBe(0);
}

const invalid = (field: string) => ({ status: 400, code: 'INVALID_PARAMETER', message: new RegExp(`^${field.replace(/[.[\]$]/g, '\\$&')}: `) });
/** A header's field path as refusals write it: headers.Host, headers["x-a"]. */
const headerField = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `headers.${name}` : `headers[${JSON.stringify(name)}]`);
const refusedRequest = (message?: string | RegExp) => ({ status: 400, code: 'INVALID_REQUEST', ...(message ? { message } : {}) });
const withToken = (url: string) => ({ url, secretName: 'open', headers: { 'x-key': '$CLIENT_SECRET' } });

describe('refusals of the Secret Key', () => {
  it('an unknown key named with the token in use', async () => {
    await expectRefused((url) => ({ url, secretName: 'nope', headers: { 'x-key': '$CLIENT_SECRET' } }), refusedRequest('No client secret is named "nope".'));
  });

  it('a locked key used by a visitor', async () => {
    await expectRefused((url) => ({ url, secretName: 'locked', headers: { 'x-key': '$CLIENT_SECRET' } }), refusedRequest(/locked: sign in/));
  });

  it('a locked key used by a user below its access group (a user at or above it passes)', async () => {
    await expectRefused((url) => ({ url, secretName: 'locked', headers: { 'x-key': '$CLIENT_SECRET' } }), refusedRequest(/access group 5/), member.id_token);
    const path = uniquePath('/echo');
    const res = await forward(project, { url: `${origin}${path}`, secretName: 'locked', headers: { 'x-key': '$CLIENT_SECRET' } }, { token: senior.id_token });
    expect(res.status).toBe(200);
    expect(await received(path)).toBe(1);
    await historyOf(project.service_id).prepare('DELETE FROM forward_requests WHERE service_id = ?').bind(project.service_id).run();
  });

  it('a url outside the key\u2019s Destinations', async () => {
    await expectRefused(
      (url) => ({ url, secretName: 'narrow', headers: { 'x-key': '$CLIENT_SECRET' } }),
      refusedRequest('Destination is not allowed for this client secret.'),
    );
  });

  it('a private address while private destinations are refused (as in production)', async () => {
    env.ALLOW_PRIVATE_DESTINATIONS = 'false';
    await expectRefused((url) => ({ url }), refusedRequest());
    await expectRefused(withToken, refusedRequest());
  });
});

describe('refusals of the url', () => {
  it.each([
    ['not http(s)', () => 'ftp://example.com/x'],
    ['relative', () => '/echo/relative'],
    ['over 8 KiB', (url: string) => `${url}?${'a'.repeat(MAX_FORWARD_URL)}`],
    ['with a control character', (url: string) => `${url}/a\u0001b`],
    ['with a line break', (url: string) => `${url}\r\nx: y`],
  ])('a url %s is INVALID_PARAMETER url', async (_what, make) => {
    await expectRefused((url) => ({ url: make(url) }), invalid('url'));
  });
});

describe('refusals of the method', () => {
  it.each(['get', 'Post', 'OPTIONS', 'TRACE', 'CONNECT', ''])('method %j is INVALID_PARAMETER method', async (method) => {
    await expectRefused((url) => ({ url, method }), invalid('method'));
  });
});

describe('refusals of headers', () => {
  it.each([
    ['a CR in a value', 'x-a', 'a\rb'],
    ['a LF in a value', 'x-a', 'a\nb'],
    ['a NUL in a value', 'x-a', 'a\u0000b'],
    ['a value outside Latin-1', 'x-a', 'caf\u00e9 \u20ac'],
    ['Host', 'Host', 'evil.example'],
    ['Connection', 'Connection', 'close'],
    ['Transfer-Encoding', 'Transfer-Encoding', 'chunked'],
    ['Upgrade', 'upgrade', 'websocket'],
    ['x-svc-user', 'x-svc-user', 'someone'],
    ['X-SVC-Service', 'X-SVC-Service', 'other'],
    ['a name with a space', 'x a', 'v'],
  ])('%s is INVALID_PARAMETER headers.<name>', async (_what, name, value) => {
    await expectRefused((url) => ({ url, headers: { [name]: value } }), invalid(headerField(name)));
  });
});

describe('refusals of the body', () => {
  it('data with GET and with HEAD', async () => {
    await expectRefused((url) => ({ url, method: 'GET', data: { a: 1 } }), invalid('data'));
    await expectRefused((url) => ({ url, method: 'HEAD', data: 'x' }), invalid('data'));
  });

  it('a dispatch whose body is not JSON', async () => {
    const path = uniquePath('/echo');
    const res = await call('POST', `/v1/projects/${project.service_id}/forward`, {
      raw: `{"url": "${origin}${path}", "data": {`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_PARAMETER');
    expect(await storedRows(path)).toBe(0);
  });

  const multipart = (base64: string) => ({ content_type: 'multipart/form-data; boundary=xyz', base64 });

  it('multipart with data, with GET, and one character over the cap', async () => {
    await expectRefused((url) => ({ url, multipart: multipart('AAAA'), data: { a: 1 } }), invalid('multipart'));
    await expectRefused((url) => ({ url, method: 'GET', multipart: multipart('AAAA') }), invalid('multipart'));
    const path = uniquePath('/echo-bytes');
    const over = await forward(project, { url: `${origin}${path}`, multipart: multipart('A'.repeat(MAX_MULTIPART_CHARS + 1)) });
    expect(over.status).toBe(400);
    expect(over.json.code).toBe('INVALID_PARAMETER');
    expect(over.json.message).toContain(String(MAX_MULTIPART_CHARS + 1));
    expect(await received(path)).toBe(0);
    expect(await storedRows(path)).toBe(0);
  });
});
