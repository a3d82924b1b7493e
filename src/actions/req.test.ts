import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { handBuiltRun, type HandBuiltOptions } from '../../test/actions/hand-built-run';
import { createProject, putSecret, type TestProject } from '../../test/helpers/api';
import { MAX_RESPONSE_BYTES } from '../outbound/fetch';
import { reqAction } from './req';
import type { ActionResult } from './types';

const origin = inject('loopbackOrigin');
const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'api', SECRET);
  await putSecret(project, 'pinned', SECRET, { destinations: ['https://api.example.com/'] });
  await putSecret(project, 'loopback-only', SECRET, { destinations: [`${origin}/echo`] });
  await putSecret(project, 'multiline', 'line1\nline2');
});

const req = (exe: Record<string, unknown>): TicketAction => ({ act: 'req', exe });
const run = (exe: Record<string, unknown>, options: HandBuiltOptions = {}) => reqAction.run(handBuiltRun(project, req(exe), options));
const withEnv = (settings: Record<string, string>) => ({ env: { ...env, ...settings } });

function failed(result: ActionResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.answer)}`);
  return result.failure;
}
function answered(result: ActionResult) {
  if (!result.ok) throw new Error(`expected an answer, got ${JSON.stringify(result.failure)}`);
  return result.answer as { status: number; headers: Record<string, string>; body: any };
}

describe('req action', () => {
  it('answers the whole response { status, headers, body } with lowercase header names and a JSON body parsed', async () => {
    const answer = answered(await run({ url: `${origin}/echo`, method: 'GET' }));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body).toMatchObject({ method: 'GET', path: '/echo' });
  });

  it('answers a body that is not JSON as text', async () => {
    const answer = answered(await run({ url: `${origin}/reflect` }));
    expect(answer.body).toBe('plain: \nonce: \ntwice: \nthrice: \nfour: ');
  });

  it('sets X-Svc-Ticket to #<ticket id>#<consume id> on every call', async () => {
    const answer = answered(await run({ url: `${origin}/echo` }, { ticketId: 'hooks', consumeId: 'CID123' }));
    expect(answer.body.headers['x-svc-ticket']).toBe('#hooks#CID123');
  });

  it('percent-encodes values inserted into the url, so they cannot add path segments or a query', async () => {
    const answer = answered(await run({ url: `${origin}/echo?id=\${body[id]}` }, { body: { id: 'a/b?c=d&e f' } }));
    expect(answer.body.query).toBe('?id=a%2Fb%3Fc%3Dd%26e%20f');
  });

  it('adds params to the query string on every method, non-text values as compact JSON', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const answer = answered(await run({ url: `${origin}/echo?keep=1`, method, params: { q: '${body[q]}', n: 5, obj: { a: [1] } } }, { body: { q: 'x y' } }));
      expect(answer.body.query, method).toBe('?keep=1&q=x+y&n=5&obj=%7B%22a%22%3A%5B1%5D%7D');
    }
  });

  it('sends data as JSON when a content-type header says application/json (also +json)', async () => {
    for (const type of ['application/json', 'application/vnd.api+json']) {
      const answer = answered(
        await run({ url: `${origin}/echo`, method: 'POST', headers: { 'Content-Type': type }, data: { id: '${body[id]}', n: 1 } }, { body: { id: 7 } }),
      );
      expect(JSON.parse(answer.body.body)).toEqual({ id: 7, n: 1 });
      expect(answer.body.headers['content-type']).toBe(type);
    }
  });

  it('form-encodes data otherwise, nested values as compact JSON', async () => {
    const answer = answered(await run({ url: `${origin}/echo`, method: 'PUT', data: { name: 'a b', nested: { x: true } } }));
    expect(answer.body.body).toBe('name=a+b&nested=%7B%22x%22%3Atrue%7D');
    expect(answer.body.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('sends no body on GET and DELETE', async () => {
    const answer = answered(await run({ url: `${origin}/echo`, method: 'DELETE', data: { a: 1 } }));
    expect(answer.body.body).toBe('');
  });

  it('fails with REQUEST_FAILED { status, body } on an answer of 300 or more; a redirect is not followed', async () => {
    const failure = failed(await run({ url: `${origin}/status/500` }));
    expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { status: 500, body: { error: 'failed on purpose', key: '' } } });
    const redirect = failed(await run({ url: `${origin}/redirect` }));
    expect(redirect).toMatchObject({ code: 'REQUEST_FAILED', detail: { status: 302, body: 'moved' } });
  });

  it('records what was sent and what came back in the action row', async () => {
    const result = await run({ url: `${origin}/status/404`, method: 'POST', headers: { 'X-A': '1' }, data: { a: 1 }, params: { p: 'q' } });
    expect(result.row).toEqual({
      sent: { method: 'POST', url: `${origin}/status/404`, headers: { 'X-A': '1' }, data: { a: 1 }, params: { p: 'q' } },
      received: { status: 404, headers: expect.objectContaining({ 'content-type': 'application/json' }), body: { error: 'failed on purpose', key: '' } },
    });
  });

  describe('with secretName', () => {
    const withSecret = {
      url: `${origin}/echo`,
      method: 'POST',
      secretName: 'api',
      headers: { 'X-Api-Key': '${CLIENT_SECRET}', 'Content-Type': 'application/json' },
      data: { auth: { token: 'Bearer ${CLIENT_SECRET}' }, list: ['${CLIENT_SECRET}'] },
      params: { key: '${CLIENT_SECRET}' },
    };

    it('substitutes ${CLIENT_SECRET} in headers, data and params and redacts every copy in the answer', async () => {
      const result = await run(withSecret);
      const answer = answered(result);
      // The destination received the secret (it echoes it back); the answer shows only ${CLIENT_SECRET}.
      expect(answer.body.headers['x-api-key']).toBe('${CLIENT_SECRET}');
      expect(JSON.parse(answer.body.body)).toEqual({ auth: { token: 'Bearer ${CLIENT_SECRET}' }, list: ['${CLIENT_SECRET}'] });
      expect(answer.body.query).toBe('?key=${CLIENT_SECRET}');
      expect(JSON.stringify(result)).not.toContain(SECRET);
    });

    it('shows ${CLIENT_SECRET} in the action row, never the value', async () => {
      const result = await run(withSecret);
      expect(result.row?.sent).toMatchObject({ headers: { 'X-Api-Key': '${CLIENT_SECRET}' }, params: { key: '${CLIENT_SECRET}' }, data: withSecret.data });
      expect(JSON.stringify(result.row)).not.toContain(SECRET);
    });

    it('redacts copies escaped up to three times in status text, headers and body; four times is not found', async () => {
      const answer = answered(await run({ url: `${origin}/reflect`, secretName: 'api', headers: { 'X-Api-Key': '${CLIENT_SECRET}' } }));
      expect(answer.headers['x-reflect']).toBe('${CLIENT_SECRET}');
      expect(answer.body).toMatch(
        /^plain: \$\{CLIENT_SECRET\}\nonce: \$\{CLIENT_SECRET\}\ntwice: \$\{CLIENT_SECRET\}\nthrice: \$\{CLIENT_SECRET\}\nfour: %5C%75/,
      );
    });

    it('redacts the secret in the detail of an error answer', async () => {
      const failure = failed(await run({ url: `${origin}/status/503`, secretName: 'api', headers: { 'X-Api-Key': 'k=${CLIENT_SECRET}' } }));
      expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { status: 503, body: { key: 'k=${CLIENT_SECRET}' } } });
    });

    it('refuses a value from the request that reads ${CLIENT_SECRET}, so the sender cannot choose where the secret goes', async () => {
      const exe = { ...withSecret, data: { comment: '${body[comment]}' } };
      await expect(run(exe, { body: { comment: 'leak ${CLIENT_SECRET}' } })).rejects.toMatchObject({ code: 'ACTION_FORBIDDEN' });
    });

    it('fails with REQUEST_FAILED { reason: secret_missing, secretName } when the key no longer exists', async () => {
      const failure = failed(await run({ ...withSecret, secretName: 'deleted-key' }));
      expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'secret_missing', secretName: 'deleted-key' } });
    });

    it("holds the call to the key's Destinations: a mismatch is ACTION_FORBIDDEN and nothing is sent", async () => {
      const failure = failed(await run({ ...withSecret, secretName: 'pinned' }));
      expect(failure).toEqual({
        code: 'ACTION_FORBIDDEN',
        message: 'Destination is not allowed for this client secret.',
        detail: { reason: 'destination_not_allowed', refusal: 'not_listed', secretName: 'pinned' },
      });
      expect(answered(await run({ ...withSecret, secretName: 'loopback-only' })).status).toBe(200);
    });

    it('fails with invalid_header when the secret cannot travel in a header', async () => {
      const failure = failed(await run({ url: `${origin}/echo`, secretName: 'multiline', headers: { Authorization: 'Bearer ${CLIENT_SECRET}' } }));
      expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'invalid_header', header: 'Authorization' } });
      expect(JSON.stringify(failure)).not.toContain('line1');
    });
  });

  it('fails with REQUEST_FAILED { reason: invalid_header } when a value breaks the header rules after templating', async () => {
    for (const value of ['a\r\nX-Injected: yes', 'nul\0', 'snow ☃']) {
      const failure = failed(await run({ url: `${origin}/echo`, headers: { 'X-Value': 'v=${body[v]}' } }, { body: { v: value } }));
      expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'invalid_header', header: 'X-Value' } });
    }
  });

  it('fails with REQUEST_FAILED { reason: invalid_url } when the templated url is not an http(s) URL with a hostname', async () => {
    const failure = failed(await run({ url: 'http://${body[host]}/x' }, { body: { host: 'a b' } }));
    expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'invalid_url' } });
  });

  it('refuses a private destination with ACTION_FORBIDDEN when private destinations are not allowed', async () => {
    const failure = failed(await run({ url: `${origin}/echo` }, withEnv({ ALLOW_PRIVATE_DESTINATIONS: 'false' })));
    expect(failure).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'private_destination', host: '127.0.0.1' } });
  });

  it('fails with REQUEST_FAILED { reason: timeout } when the destination does not answer in time', async () => {
    const failure = failed(await run({ url: `${origin}/stall` }, withEnv({ OUTBOUND_CALL_MS: '200' })));
    expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'timeout' } });
  });

  it('never goes beyond the consumption deadline', async () => {
    const action = handBuiltRun(project, req({ url: `${origin}/echo` }));
    const late = { ...action, services: { ...action.services, now: () => Date.now(), deadline: Date.now() - 1 } };
    expect(failed(await reqAction.run(late))).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'timeout' } });
  });

  it('fails with REQUEST_FAILED { reason: too_large } on a response over the cap', async () => {
    const failure = failed(await run({ url: `${origin}/huge` }));
    expect(failure).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'too_large', limit: MAX_RESPONSE_BYTES } });
  });
});
