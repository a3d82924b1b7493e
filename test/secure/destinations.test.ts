/**
 * Destinations of the secureRequest key, through the real Worker against the loopback API: the project
 * setting `secure_request_destinations` (validated as a Secret Key's Destinations are), and secureRequest
 * refusing a call with any url outside a non-empty list before anything is sent. The whole matcher table
 * runs in src/secure/urls.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createProject, mintUser, putSecret, call, type TestProject } from '../helpers/api';
import { received, uniquePath } from '../forward/support';
import { origin, patchSecureSettings, secureRequest, setSecureDestinations, setSecureKey, verifyingApi } from './support';

const KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const REFUSAL = 'Destination is not allowed for the secureRequest key.';

/** A fresh project with a key and a signed-in user. */
async function keyedProject(): Promise<{ project: TestProject; token: string }> {
  const project = await createProject();
  await setSecureKey(project, KEY);
  return { project, token: (await mintUser(project)).id_token };
}

describe('the project setting', () => {
  it('the project answer shows the list (never the key); a change that leaves it out keeps it; null and [] clear it', async () => {
    const project = await createProject();
    const list = [`${origin}/echo`, 'https://*.example.com/v1'];
    const set = await patchSecureSettings(project, { secure_request_key: KEY, secure_request_destinations: list });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toMatchObject({ secure_request_key_set: true, secure_request_destinations: list });
    expect(set.text).not.toContain(KEY);
    expect((await patchSecureSettings(project, { secure_request_key: null })).json.secure_request_destinations).toEqual(list);
    expect((await patchSecureSettings(project, { secure_request_destinations: null })).json.secure_request_destinations).toEqual([]);
    await setSecureDestinations(project, list);
    expect((await patchSecureSettings(project, { secure_request_destinations: [] })).json.secure_request_destinations).toEqual([]);
  });

  it('only the operator changes it, as the key: the owner key is UNAUTHORIZED and the list stays', async () => {
    const project = await createProject();
    await setSecureDestinations(project, [`${origin}/echo`]);
    const res = await call('PATCH', `/v1/projects/${project.service_id}`, { token: project.owner_key, body: { secure_request_destinations: null } });
    expect([res.status, res.json.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await patchSecureSettings(project, {})).json.secure_request_destinations).toEqual([`${origin}/echo`]);
  });
});

describe('the list validates as Secret Key Destinations do: same limits, same messages', () => {
  const bad: [string, unknown][] = [
    ['not a list', 'https://api.example/'],
    ['a number in the list', [1]],
    ['null in the list', [null]],
    ['an ftp:// URL', ['ftp://api.example/']],
    ['a URL without a scheme', ['api.example']],
    ['a URL with a NUL character', ['https://api.example/\u0000']],
    ['a URL with a right-to-left override', ['https://api.example/\u202ex']],
    ['a URL with a space', ['https://api.example/ x']],
    ['a URL over 2048 characters', [`https://api.example/${'x'.repeat(2048)}`]],
    ['a URL with a user name', ['https://name@api.example/']],
    ['a URL with a query', ['https://api.example/v1?key=1']],
    ['a URL with a fragment', ['https://api.example/v1#top']],
    ['a URL with * inside the host', ['https://api.*.example/']],
    ['a URL with * in the path', ['https://api.example/v1/*']],
    ['a URL with a backslash', ['https://api.example\\v1']],
    ['a URL with a .. segment', ['https://api.example/v1/../v2']],
    ['a URL with the token in the host', ['https://$CLIENT_SECRET.api.example/']],
    ['a valid URL then one with user info', ['https://api.example/v1', 'https://u@api.example/']],
    ['101 URLs', Array.from({ length: 101 }, (_, i) => `https://api${i}.example/`)],
  ];

  it.each(bad)('%s: INVALID_PARAMETER with the Secret Key message, nothing stored', async (_what, list) => {
    const project = await createProject();
    await setSecureDestinations(project, ['https://kept.example/']);
    const asProject = await patchSecureSettings(project, { secure_request_destinations: list });
    const asSecret = await call('PUT', `/v1/projects/${project.service_id}/secrets/K`, { token: project.owner_key, body: { value: 'v', destinations: list } });
    expect(asSecret.status).toBe(400);
    const renamed = (text: string) => text.replaceAll('secure_request_destinations', 'destinations');
    expect([asProject.status, asProject.json.code, renamed(asProject.json.message), renamed(String(asProject.json.detail?.field))]).toEqual([
      400,
      'INVALID_PARAMETER',
      asSecret.json.message,
      asSecret.json.detail.field,
    ]);
    expect(asProject.json.message).toContain('secure_request_destinations');
    expect((await patchSecureSettings(project, {})).json.secure_request_destinations).toEqual(['https://kept.example/']);
  });

  it('100 URLs (the limit) and a wildcard are accepted, as for a Secret Key', async () => {
    const project = await createProject();
    const list = [...Array.from({ length: 99 }, (_, i) => `https://api${i}.example/v1`), 'https://*.example.com/v1'];
    const asProject = await patchSecureSettings(project, { secure_request_destinations: list });
    expect(asProject.json.secure_request_destinations).toEqual(list);
    await putSecret(project, 'K', 'v', { destinations: list });
  });
});

describe('secureRequest with Destinations', () => {
  it('a url matching a Destination is sent and signed: the API verifies the signature', async () => {
    const { project, token } = await keyedProject();
    await setSecureDestinations(project, [`${origin}/webhook`]);
    const url = await verifyingApi(KEY);
    const res = await secureRequest(project, { url, data: { a: 1 } }, token);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ statusCode: 200, url, response: { verified: true, payload: { data: { a: 1 }, api_key: '$SECURE_REQUEST_KEY' } } });
  });

  it('a url outside the Destinations, third of 3, refuses the whole call (INVALID_REQUEST naming [2].url) and the API sees nothing', async () => {
    const { project, token } = await keyedProject();
    await setSecureDestinations(project, [`${origin}/echo`]);
    const paths = [uniquePath('/echo'), uniquePath('/echo'), uniquePath('/elsewhere')];
    const res = await secureRequest(
      project,
      paths.map((path) => ({ url: `${origin}${path}` })),
      token,
    );
    expect([res.status, res.json]).toEqual([
      400,
      { code: 'INVALID_REQUEST', message: `[2].url: ${REFUSAL}`, detail: { field: '[2].url', refusal: 'not_listed' } },
    ]);
    expect(res.text).not.toContain(KEY);
    for (const path of paths) expect(await received(path), path).toBe(0);
  });

  it('a url whose text could be read as another address is refused on a listed path (a .. segment), naming url', async () => {
    const { project, token } = await keyedProject();
    await setSecureDestinations(project, [`${origin}/echo`]);
    const target = uniquePath('/elsewhere');
    const res = await secureRequest(project, { url: `${origin}/echo/..${target}` }, token);
    expect([res.status, res.json]).toEqual([400, { code: 'INVALID_REQUEST', message: `url: ${REFUSAL}`, detail: { field: 'url', refusal: 'dot_segment' } }]);
    expect(await received(target)).toBe(0);
  });

  it('another port of the same host is outside the list', async () => {
    const { project, token } = await keyedProject();
    const port = Number(new URL(origin).port);
    await setSecureDestinations(project, [`http://127.0.0.1:${port + 1}/`]);
    const path = uniquePath('/echo');
    const res = await secureRequest(project, { url: `${origin}${path}` }, token);
    expect(res.json).toMatchObject({ code: 'INVALID_REQUEST', detail: { field: 'url', refusal: 'not_listed' } });
    expect(await received(path)).toBe(0);
  });

  it("the list holds without a key too: it is the project's, kept when the key is cleared", async () => {
    const { project, token } = await keyedProject();
    await setSecureDestinations(project, [`${origin}/echo`]);
    await setSecureKey(project, null);
    const path = uniquePath('/elsewhere');
    expect((await secureRequest(project, { url: `${origin}${path}` }, token)).json).toMatchObject({ code: 'INVALID_REQUEST', message: `url: ${REFUSAL}` });
    expect(await received(path)).toBe(0);
  });

  it("clearing the list (null) restores today's behaviour: any public url is sent; narrowing it again holds from the next call", async () => {
    const { project, token } = await keyedProject();
    const path = uniquePath('/elsewhere');
    const url = `${origin}${path}`;
    await setSecureDestinations(project, [`${origin}/echo`]);
    expect((await secureRequest(project, { url }, token)).status).toBe(400);
    await setSecureDestinations(project, null);
    const sent = await secureRequest(project, { url }, token);
    expect(sent.json).toMatchObject({ statusCode: 404, url });
    expect(await received(path)).toBe(1);
    await setSecureDestinations(project, [`${origin}/echo`]);
    expect((await secureRequest(project, { url }, token)).json).toMatchObject({ code: 'INVALID_REQUEST', detail: { field: 'url' } });
    expect(await received(path)).toBe(1);
  });
});
