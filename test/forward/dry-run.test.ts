/**
 * `check: true` answers the request as it would go (the key shown as $CLIENT_SECRET) and a verdict per
 * rule (secret access, destination, limits), sending nothing and counting nothing.
 */
import { historyOf } from './history-store';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, mintUser, putSecret, type TestProject } from '../helpers/api';
import { forward, origin, received, uniquePath } from './support';

const SECRET = 'sk_dry_77aa88bb';
let project: TestProject;
let member: { id_token: string };

beforeAll(async () => {
  project = await createProject();
  member = await mintUser(project, { access_group: 2 });
  await putSecret(project, 'open', SECRET, { limits: { per_caller_per_minute: 1 } });
  await putSecret(project, 'locked', SECRET, { locked: true, access_group: 5 });
  await putSecret(project, 'narrow', SECRET, { destinations: [`${origin}/echo/allowed`] });
});

afterEach(() => {
  env.ALLOW_PRIVATE_DESTINATIONS = 'true';
});

async function rows(): Promise<number> {
  const { results } = await historyOf(project.service_id)
    .prepare('SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ?')
    .bind(project.service_id)
    .all<{ n: number }>();
  const rates = await env.DB.prepare('SELECT COUNT(*) AS n FROM forward_rate WHERE service_id = ?').bind(project.service_id).first<{ n: number }>();
  return results.reduce((sum, row) => sum + row.n, 0) + rates!.n;
}

/** Dry-runs the dispatch against a fresh /echo path; nothing may arrive there or be stored. */
async function dryRun(body: (url: string) => Record<string, unknown>, token?: string) {
  const path = uniquePath('/echo');
  const res = await forward(project, { ...body(`${origin}${path}`), check: true }, token ? { token } : {});
  expect(res.status, res.text).toBe(200);
  expect(res.text).not.toContain(SECRET);
  expect(await received(path)).toBe(0);
  expect(await rows()).toBe(0);
  return { json: res.json, url: `${origin}${path}` };
}

const usingKey = (secretName: string) => (url: string) => ({ url, secretName, headers: { authorization: 'Bearer $CLIENT_SECRET' } });

describe('dry run', () => {
  it('shows the request with $CLIENT_SECRET in place of the key, and allows it', async () => {
    const { json, url } = await dryRun((u) => ({
      url: `${u}/$CLIENT_SECRET`,
      secretName: 'open',
      headers: { authorization: 'Bearer $CLIENT_SECRET' },
      data: { k: '$CLIENT_SECRET' },
      params: { q: 'a b' },
    }));
    expect(json).toEqual({
      check: true,
      outcome: 'send',
      request: {
        method: 'POST',
        url: `${url}/$CLIENT_SECRET?q=a+b`,
        headers: { authorization: 'Bearer $CLIENT_SECRET', 'content-type': 'application/json' },
        body: '{"k":"$CLIENT_SECRET"}',
      },
      verdicts: { secret: 'allowed', destination: 'allowed', limits: 'allowed' },
    });
  });

  it('a request without the token: the secret is unused', async () => {
    const { json } = await dryRun((url) => ({ url, method: 'GET', secretName: 'nope' }));
    expect(json).toMatchObject({ outcome: 'send', verdicts: { secret: 'unused', destination: 'allowed', limits: 'allowed' } });
  });

  it('an unknown key, a locked key for a visitor and for a user below its group: the secret verdict says why', async () => {
    expect((await dryRun(usingKey('nope'))).json).toMatchObject({
      outcome: 'refuse',
      verdicts: { secret: 'No client secret is named "nope".', destination: 'allowed' },
    });
    expect((await dryRun(usingKey('locked'))).json).toMatchObject({
      outcome: 'refuse',
      verdicts: { secret: expect.stringMatching(/locked: sign in/), destination: 'allowed' },
    });
    expect((await dryRun(usingKey('locked'), member.id_token)).json).toMatchObject({
      outcome: 'refuse',
      verdicts: { secret: expect.stringMatching(/access group 5/) },
    });
  });

  it("a url outside the key's Destinations: the destination verdict says why, the key's access is allowed", async () => {
    expect((await dryRun(usingKey('narrow'))).json).toMatchObject({
      outcome: 'refuse',
      verdicts: { secret: 'allowed', destination: 'Destination is not allowed for this client secret.', limits: 'allowed' },
    });
  });

  it('a private address while private destinations are refused: the destination verdict says why', async () => {
    env.ALLOW_PRIVATE_DESTINATIONS = 'false';
    expect((await dryRun((url) => ({ url }))).json).toMatchObject({
      outcome: 'refuse',
      verdicts: { destination: expect.stringMatching(/not a public address/) },
    });
  });

  it('a key over its per-minute limit: the limits verdict says why, and dry runs themselves count nothing', async () => {
    const path = uniquePath('/echo');
    for (let i = 0; i < 3; i++) expect((await forward(project, { ...usingKey('open')(`${origin}${path}`), check: true })).json.verdicts.limits).toBe('allowed');
    expect((await forward(project, usingKey('open')(`${origin}${path}`))).status).toBe(200);
    const over = await forward(project, { ...usingKey('open')(`${origin}${path}`), check: true });
    expect(over.json).toMatchObject({ outcome: 'refuse', verdicts: { limits: expect.stringMatching(/at most 1 calls a minute per caller/) } });
    expect(await received(path)).toBe(1);
    await env.DB.prepare('DELETE FROM forward_rate WHERE service_id = ?').bind(project.service_id).run();
    await historyOf(project.service_id).prepare('DELETE FROM forward_requests WHERE service_id = ?').bind(project.service_id).run();
  });

  it('a url with user info is refused as a dispatch of it would be (INVALID_PARAMETER), not failed', async () => {
    const res = await forward(project, { url: 'https://name@example.com/x', check: true });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'url: The request URL may not carry a user name or password.',
      detail: { field: 'url' },
    });
    expect((await forward(project, { url: 'https://name@example.com/x' })).json).toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});
