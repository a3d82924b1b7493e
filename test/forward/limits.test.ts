/**
 * A Secret Key's abuse limits: exactly N calls a minute per caller (and per key, across callers) pass, the
 * next answers 429 TOO_MANY_REQUESTS with Retry-After and is not sent; queued_per_caller caps the caller's
 * unresolved queued requests with the key. A call that does not use the key is not counted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { forward, heldAtGate, loopback, origin, received, settledEnvelope, uniquePath } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'per-caller', 'sk_pc_1', { limits: { per_caller_per_minute: 3 } });
  await putSecret(project, 'per-key', 'sk_pk_1', { limits: { per_key_per_minute: 2 } });
  await putSecret(project, 'queued', 'sk_q_1', { limits: { queued_per_caller: 2 } });
  await putSecret(project, 'both', 'sk_b_1', { limits: { queued_per_caller: 1, per_caller_per_minute: 2 } });
});

/**
 * The counts are per clock minute: a test that needs N + 1 calls in one minute starts them early in a
 * minute, so a minute boundary cannot fall between them (this waits; it asserts nothing about time).
 */
async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

const usingKey = (secretName: string, path: string) => ({ url: `${origin}${path}`, method: 'GET', secretName, headers: { 'x-key': '$CLIENT_SECRET' } });
const stranger = { headers: { 'cf-connecting-ip': '198.51.100.31', 'user-agent': 'another browser' } };

function expectTooMany(res: { status: number; json: any; headers: Headers }, message: RegExp): void {
  expect(res.status).toBe(429);
  expect(res.json).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  expect(res.json.message).toMatch(message);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
}

describe('per-minute limits', () => {
  it('per_caller_per_minute 3: three calls pass, the fourth is 429 and not sent; another caller still has its three', async () => {
    await awayFromMinuteEnd();
    const path = uniquePath('/echo');
    for (let i = 0; i < 3; i++) expect((await forward(project, usingKey('per-caller', path))).status).toBe(200);
    // Calls that name the key without using it are not counted.
    expect((await forward(project, { url: `${origin}${path}-unused`, method: 'GET', secretName: 'per-caller' })).status).toBe(200);
    expectTooMany(await forward(project, usingKey('per-caller', path)), /at most 3 calls a minute per caller/);
    expect(await received(path)).toBe(3);
    expect((await forward(project, usingKey('per-caller', path), stranger)).status).toBe(200);
    expect(await received(path)).toBe(4);
  });

  it('per_key_per_minute 2 counts every caller: the third call of any caller is 429 and not sent', async () => {
    await awayFromMinuteEnd();
    const path = uniquePath('/echo');
    expect((await forward(project, usingKey('per-key', path))).status).toBe(200);
    expect((await forward(project, usingKey('per-key', path), stranger)).status).toBe(200);
    expectTooMany(await forward(project, usingKey('per-key', path)), /at most 2 calls a minute with this client secret/);
    expectTooMany(await forward(project, { ...usingKey('per-key', path), queue: 'pk' }, stranger), /at most 2 calls/);
    expect(await received(path)).toBe(2);
  });
});

describe('queued_per_caller', () => {
  it('2: a third unresolved queued request with the key is 429 and not stored; once one settles, another is taken', async () => {
    const gate = crypto.randomUUID();
    const heldUrl = `${origin}/gate/hold/${gate}`;
    const first = await forward(project, { ...usingKey('queued', ''), url: heldUrl, queue: 'q-a' });
    expect(first.status).toBe(200);
    const path = uniquePath('/echo');
    expect((await forward(project, { ...usingKey('queued', path), queue: 'q-a' })).status).toBe(200);
    await heldAtGate(gate);
    const third = uniquePath('/echo');
    expectTooMany(await forward(project, { ...usingKey('queued', third), queue: 'q-a' }), /at most 2 queued requests per caller/);
    // Another caller has its own allowance, and a request without the key is not limited.
    expect((await forward(project, { ...usingKey('queued', uniquePath('/echo')), queue: 'q-a' }, stranger)).status).toBe(200);
    expect((await forward(project, { url: `${origin}${uniquePath('/echo')}`, method: 'GET', queue: 'q-a' })).status).toBe(200);

    await loopback(`/gate/open/${gate}`);
    await settledEnvelope(project, { id: first.json.id, url: heldUrl, method: 'GET' });
    const later = await forward(project, { ...usingKey('queued', third), queue: 'q-a' });
    expect(later.status).toBe(200);
    expect(await settledEnvelope(project, { id: later.json.id, url: `${origin}${third}`, method: 'GET' })).toMatchObject({ status: 'resolved' });
    expect(await received(third)).toBe(1);
  });

  it('a call refused for the queued limit is not counted against the per-minute limit', async () => {
    await awayFromMinuteEnd();
    const gate = crypto.randomUUID();
    const heldUrl = `${origin}/gate/hold/${gate}`;
    const held = await forward(project, { ...usingKey('both', ''), url: heldUrl, queue: 'both' });
    expect(held.status).toBe(200);
    expectTooMany(await forward(project, { ...usingKey('both', uniquePath('/echo')), queue: 'both' }), /at most 1 queued requests/);
    expectTooMany(await forward(project, { ...usingKey('both', uniquePath('/echo')), queue: 'both' }), /at most 1 queued requests/);
    // The held call is the one counted this minute: one more passes.
    const path = uniquePath('/echo');
    expect((await forward(project, usingKey('both', path))).status).toBe(200);
    expect(await received(path)).toBe(1);
    await heldAtGate(gate);
    await loopback(`/gate/open/${gate}`);
    await settledEnvelope(project, { id: held.json.id, url: heldUrl, method: 'GET' });
  });
});
