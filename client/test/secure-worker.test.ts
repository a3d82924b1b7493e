import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySecureRequest } from '../../test/secure/verify-example.mjs';
import { Svc } from '../src/index.js';
import { rejection } from './helpers/rejection.js';
import { json, startScriptedServer, type RecordedRequest, type ScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// secureRequest against the real Worker (`wrangler dev`), mirroring to a loopback API this test runs,
// which verifies each request as the README's example does.
let worker: ProjectOnWorker;
let dest: ScriptedServer;
let svc: Svc;
let user: { user_id: string; id_token: string };
const KEY = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

beforeAll(async () => {
  dest = await startScriptedServer();
  worker = await createTestProject();
  await worker.setSecureRequestKey(KEY);
  user = await worker.mintUser({ tier: 'gold' });
  svc = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: user.id_token });
});

afterAll(async () => {
  await dest?.close();
});

/** The customer's API: verifies the signature (README example) and answers what it verified. */
const verifying = (req: RecordedRequest, res: ServerResponse) => {
  try {
    json(res, 200, { verified: verifySecureRequest(KEY, req.headers as Record<string, string>, req.body) });
  } catch (error) {
    json(res, 401, { error: (error as Error).message });
  }
};

beforeEach(() => {
  dest.requests.length = 0;
  dest.handle(verifying);
});

describe('secureRequest against the Worker', () => {
  it('resolves { response, statusCode, url }: the API received { user, data, api_key }, signed, and verified it with standardwebhooks', async () => {
    const url = `${dest.url}/api/profile`;
    const answer = await svc.secureRequest<{ verified: { user: Record<string, unknown>; data: unknown; api_key: string } }>({
      url,
      data: { some_data: 'Hello' },
    });
    expect(answer).toEqual({
      response: {
        verified: {
          user: { user_id: user.user_id, access_group: 1, email: expect.any(String), tier: 'gold' },
          data: { some_data: 'Hello' },
          api_key: '$SECURE_REQUEST_KEY',
        },
      },
      statusCode: 200,
      url,
    });
    const [arrived] = dest.requests;
    expect(arrived).toMatchObject({ method: 'POST', url: '/api/profile', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(arrived.body).api_key).toBe(KEY);
    expect(new Webhook(KEY).verify(arrived.body, arrived.headers as Record<string, string>)).toMatchObject({ user: { user_id: user.user_id } });
  });

  it('FormData with the url second is flattened into data; so is a plain object', async () => {
    const form = new FormData();
    form.append('tag', 'a');
    form.append('tag', 'b');
    form.append('file', new File(['x'], 'x.txt'));
    expect((await svc.secureRequest<any>(form, `${dest.url}/api/form`)).response.verified.data).toEqual({ tag: ['a', 'b'] });
    expect((await svc.secureRequest<any>({ q: 'otters' }, `${dest.url}/api/object`)).response.verified.data).toEqual({ q: 'otters' });
  });

  it('an array answers an array in order; a request without sync is sent at once (three in flight together)', async () => {
    const held: Array<() => void> = [];
    dest.handle((req, res) => {
      held.push(() => json(res, 200, { path: req.url }));
      if (held.length === 3) for (const release of held) release();
    });
    const answers = await svc.secureRequest([1, 2, 3].map((n) => ({ url: `${dest.url}/api/parallel/${n}` })));
    expect(answers.map((answer) => [answer.statusCode, answer.response])).toEqual([1, 2, 3].map((n) => [200, { path: `/api/parallel/${n}` }]));
  });

  it('sync: each request arrives after the one before it has answered', async () => {
    let open = 0;
    let most = 0;
    dest.handle((req, res) => {
      open += 1;
      most = Math.max(most, open);
      setTimeout(() => {
        open -= 1;
        json(res, 200, { path: req.url });
      }, 20);
    });
    const answers = await svc.secureRequest([1, 2, 3].map((n) => ({ url: `${dest.url}/api/sync/${n}`, sync: n > 1 })));
    expect(dest.requests.map((req) => req.url)).toEqual(['/api/sync/1', '/api/sync/2', '/api/sync/3']);
    expect(most).toBe(1);
    expect(answers.map((answer) => answer.response)).toEqual([1, 2, 3].map((n) => ({ path: `/api/sync/${n}` })));
  });

  it("the API's error status and a body that is not JSON are answers, not failures", async () => {
    dest.handle((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
    expect(await svc.secureRequest({ url: `${dest.url}/api/down` })).toEqual({
      response: 'down for maintenance',
      statusCode: 503,
      url: `${dest.url}/api/down`,
    });
  });

  it('an answer of 10 MB: a single request rejects with REQUEST_FAILED (502); in an array that request carries the error', async () => {
    dest.handle((req, res) => {
      if (req.url === '/api/huge') res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(10_000_000));
      else json(res, 200, { ok: true });
    });
    const single = await rejection(svc.secureRequest({ url: `${dest.url}/api/huge` }));
    expect(single).toMatchObject({ code: 'REQUEST_FAILED', status: 502, message: 'The response is larger than 1048576 bytes.' });
    const answers = await svc.secureRequest([{ url: `${dest.url}/api/small` }, { url: `${dest.url}/api/huge` }]);
    expect(answers[0]).toMatchObject({ statusCode: 200, response: { ok: true } });
    expect(answers[1]).toEqual({
      response: null,
      statusCode: 0,
      url: `${dest.url}/api/huge`,
      error: { code: 'REQUEST_FAILED', message: 'The response is larger than 1048576 bytes.' },
    });
  });
});

describe('secureRequest refusals: nothing is sent', () => {
  it('signed out: AUTH_REQUIRED before sending; with the owner key: AUTH_REQUIRED from the server', async () => {
    const signedOut = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url });
    expect((await rejection(signedOut.secureRequest({ url: `${dest.url}/api/x` }))).code).toBe('AUTH_REQUIRED');
    const owner = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: worker.project.owner_key });
    expect(await rejection(owner.secureRequest({ url: `${dest.url}/api/x` }))).toMatchObject({ code: 'AUTH_REQUIRED', status: 401 });
    expect(dest.requests).toHaveLength(0);
  });

  it('100 requests, a url that is not http(s), CRLF in a url, data that is not JSON: INVALID_PARAMETER', async () => {
    const url = `${dest.url}/api/x`;
    for (const params of [
      Array.from({ length: 100 }, () => ({ url })),
      [{ url }, { url: 'javascript:alert(1)' }],
      { url: `${url}\r\nx-injected: 1` },
      { url, data: { callback: () => undefined } },
    ]) {
      expect((await rejection(svc.secureRequest(params as never))).code).toBe('INVALID_PARAMETER');
    }
    expect(dest.requests).toHaveLength(0);
  });
});
