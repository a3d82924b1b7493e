/**
 * secureRequest through the real Worker to loopback APIs: what the customer's API receives and how it
 * verifies it (the README's example, with the standardwebhooks package), the answers, and the order
 * `sync` asks for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import readme from '../../README.md?raw';
import apiDoc from '../../docs/api.md?raw';
import verifyExample from './verify-example.mjs?raw';
import { servedRoute } from '../../src/openapi/route';
import { app } from '../../src/router';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { eventually, heldAtGate, loopback, received, uniquePath } from '../forward/support';
import { origin, secureRequest, setSecureKey, verifyingApi } from './support';

const WHSEC_KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PLAIN_KEY = 'srk-plain-ключ-42';

let project: TestProject;
let user: { user_id: string; id_token: string };

beforeAll(async () => {
  project = await createProject();
  user = await mintUser(project, { email: 'ada@example.com', access_group: 5, attributes: { tier: 'pro', locale: 'KR' } });
});

const documented = servedRoute(app, 'secureRequest').doc.success.schema;

describe("what the customer's API receives", () => {
  it('{ user, data, api_key } signed in the Standard Webhooks format with a whsec_ key; the API verifies it with standardwebhooks', async () => {
    await setSecureKey(project, WHSEC_KEY);
    const url = await verifyingApi(WHSEC_KEY);
    const res = await secureRequest(project, { url, data: { some_data: 'Hello' } }, user.id_token);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      response: {
        verified: true,
        payload: {
          user: { user_id: user.user_id, access_group: 5, email: 'ada@example.com', tier: 'pro', locale: 'KR' },
          data: { some_data: 'Hello' },
          api_key: '$SECURE_REQUEST_KEY',
        },
      },
      statusCode: 200,
      url,
    });
    expect(res.text).not.toContain(WHSEC_KEY);
    expect(documented.safeParse(res.json).success).toBe(true);
  });

  it('a key that is not whsec_ signs with its UTF-8 bytes; the documented raw Webhook verifies it', async () => {
    await setSecureKey(project, PLAIN_KEY);
    const res = await secureRequest(project, { url: await verifyingApi(PLAIN_KEY) }, user.id_token);
    expect(res.json).toMatchObject({ statusCode: 200, response: { verified: true, payload: { data: null, api_key: '$SECURE_REQUEST_KEY' } } });
  });

  it('an API holding another key refuses the signature; its 401 is the answer, not a failure', async () => {
    await setSecureKey(project, PLAIN_KEY);
    const res = await secureRequest(project, { url: await verifyingApi('whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD') }, user.id_token);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ statusCode: 401, response: { verified: false, error: 'No matching signature found' } });
  });

  it('without a key: { user, data } only, no webhook-* headers (nothing to sign with); POST with content-type application/json', async () => {
    await setSecureKey(project, null);
    const path = uniquePath('/echo');
    const res = await secureRequest(project, { url: `${origin}${path}`, data: [1, 'two'] }, user.id_token);
    const echoed = res.json.response;
    expect(echoed).toMatchObject({ method: 'POST', path, headers: { 'content-type': 'application/json' } });
    expect(Object.keys(echoed.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    expect(JSON.parse(echoed.body)).toEqual({
      user: { user_id: user.user_id, access_group: 5, email: 'ada@example.com', tier: 'pro', locale: 'KR' },
      data: [1, 'two'],
    });
    expect(await received(path)).toBe(1);
  });

  it('every copy of the key the API echoes back reads $SECURE_REQUEST_KEY (here: the whole body, escaped inside a JSON string)', async () => {
    await setSecureKey(project, 'srk-"quoted"\\key');
    const res = await secureRequest(project, { url: `${origin}/echo` }, user.id_token);
    expect(res.text).not.toContain('quoted');
    expect(JSON.parse(res.json.response.body).api_key).toBe('$SECURE_REQUEST_KEY');
    await setSecureKey(project, null);
  });
});

describe('answers', () => {
  it('a body that is not JSON is answered as its text; a redirect is not followed: the 302 is the answer', async () => {
    expect((await secureRequest(project, { url: `${origin}/sized/5` }, user.id_token)).json).toEqual({
      response: 'xxxxx',
      statusCode: 200,
      url: `${origin}/sized/5`,
    });
    expect((await secureRequest(project, { url: `${origin}/redirect` }, user.id_token)).json).toEqual({
      response: 'moved',
      statusCode: 302,
      url: `${origin}/redirect`,
    });
  });

  it("an array answers an array in the order of the requests, each with the destination's own status and the url as written", async () => {
    const urls = [`${origin}/echo-status/201`, `${origin}/echo-status/404`, `${origin}/sized/3#fragment`];
    const res = await secureRequest(
      project,
      urls.map((url) => ({ url })),
      user.id_token,
    );
    expect(res.status).toBe(200);
    expect(res.json.map((answer: { statusCode: number; url: string }) => [answer.statusCode, answer.url])).toEqual([
      [201, urls[0]],
      [404, urls[1]],
      [200, urls[2]],
    ]);
    expect(res.json[2].response).toBe('xxx');
    expect(documented.safeParse(res.json).success).toBe(true);
  });
});

describe('order: sync waits for the request before it; the others run in parallel', () => {
  it('requests without sync are all in flight at once (three held at a gate together)', async () => {
    const gate = crypto.randomUUID();
    const call = secureRequest(
      project,
      [1, 2, 3].map(() => ({ url: `${origin}/gate/hold/${gate}` })),
      user.id_token,
    );
    await heldAtGate(gate, 3);
    await fetch(`${origin}/gate/open/${gate}`);
    expect((await call).json.map((answer: { response: unknown }) => answer.response)).toEqual([{ released: true }, { released: true }, { released: true }]);
  });

  it('a sync request is not sent while the one before it is held; a later request without sync is', async () => {
    const gate = crypto.randomUUID();
    const [waiting, free] = [uniquePath('/echo'), uniquePath('/echo')];
    const call = secureRequest(
      project,
      [{ url: `${origin}/gate/hold/${gate}` }, { url: `${origin}${waiting}`, sync: true }, { url: `${origin}${free}` }],
      user.id_token,
    );
    await heldAtGate(gate);
    await eventually('the request without sync arrived', async () => (await received(free)) === 1);
    expect(await received(waiting)).toBe(0);
    await fetch(`${origin}/gate/open/${gate}`);
    const res = await call;
    expect(res.json.map((answer: { statusCode: number }) => answer.statusCode)).toEqual([200, 200, 200]);
    expect(await received(waiting)).toBe(1);
  });

  it('a chain of sync requests arrives one at a time, each after the one before it finished, in order', async () => {
    const key = crypto.randomUUID();
    const res = await secureRequest(
      project,
      [1, 2, 3, 4].map((n) => ({ url: `${origin}/seq/${key}/${n}`, sync: n > 1 })),
      user.id_token,
    );
    expect(res.json.map((answer: { response: unknown }) => answer.response)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(await loopback(`/seq-state/${key}`)).toMatchObject({ order: [1, 2, 3, 4], maxInFlight: 1, inFlight: 0 });
  });
});

describe('the verification example', () => {
  it('README and docs/api.md show the example exactly as the loopback API runs it', () => {
    expect(verifyExample.split('\n').length).toBeLessThanOrEqual(11);
    expect(readme).toContain(`\`\`\`js\n${verifyExample}\`\`\``);
    expect(apiDoc).toContain(`\`\`\`js\n${verifyExample}\`\`\``);
  });
});
