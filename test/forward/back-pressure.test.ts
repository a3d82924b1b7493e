/**
 * Extension (issue 36 item 2): a queued request sent with `retry` and answered 429 or 503 waits out the
 * back-pressure and is sent again, its queue waiting behind it; without `retry` a 429 settles as the spec
 * says. The destination is the loopback server's /busy route (429 with Retry-After the first n times).
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/api';
import { cancel, eventually, forward, history, loopback, origin, poll, readStream, received, settledEnvelope, uniquePath } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** A /busy url of the test's own: 429 the first `limited` times, then 200. */
const busy = (limited: number, retryAfter?: string) => {
  const key = crypto.randomUUID();
  const query = retryAfter === undefined ? '' : `?retry_after=${encodeURIComponent(retryAfter)}`;
  return { key, url: `${origin}/busy/${key}/${limited}${query}` };
};

const GET = 'GET' as const;

/** Polls (at most a second) until the request waits out back-pressure; answers that status object. */
async function waitingState(id: string, url: string): Promise<Record<string, any>> {
  for (const until = Date.now() + 1000; Date.now() < until; ) {
    const state = (await poll(project, { id, url, method: GET })).json;
    if (state.next_attempt_at !== undefined) return state;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the request never waited');
}

describe('a queued request sent with retry', () => {
  it('waits out a 429 with Retry-After and resolves 200, listing the attempt it waited out', async () => {
    const { key, url } = busy(1);
    const sent = await forward(project, { url, method: GET, queue: 'bp-resolve', retry: true });
    expect(sent.status, sent.text).toBe(200);
    const done = await settledEnvelope(project, { id: sent.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 200, response_body: { calls: 2 } });
    expect(done.attempts).toEqual([{ at: expect.any(Number), status_code: 429, waited_ms: 1000 }]);
    expect(done.attempts[0].at).toBeLessThan(done.executed);
    expect(done).not.toHaveProperty('next_attempt_at');
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 2 });
  });

  it('lists its attempts in the history once settled', async () => {
    const { url } = busy(1);
    const sent = await forward(project, { url, method: GET, queue: 'bp-history', retry: true });
    await settledEnvelope(project, { id: sent.json.id, url, method: GET });
    let item: Record<string, any> | undefined;
    await eventually('the settled request is in the history', async () => {
      item = (await history(project, { url, method: GET })).json.list[0];
      return item?.status === 'resolved';
    });
    expect(item).toMatchObject({ status_code: 200, attempts: [{ status_code: 429, waited_ms: 1000 }] });
    expect(item).not.toHaveProperty('next_attempt_at');
  });

  it('works for a streamed request: the 429 is waited out and the 200 relayed', async () => {
    const { key, url } = busy(1);
    const sent = await forward(project, { url, method: GET, stream: true, retry: true });
    expect(sent.status, sent.text).toBe(200);
    const read = await readStream(project, { id: sent.json.id, url, method: GET }, 0, {}, 5000);
    expect(read.text).toBe('{"calls":2}');
    const done = await settledEnvelope(project, { id: sent.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 200, attempts: [{ status_code: 429, waited_ms: 1000 }] });
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 2 });
  });

  it('is pending with next_attempt_at while it waits', async () => {
    const { key, url } = busy(1);
    const sent = await forward(project, { url, method: GET, queue: 'bp-waiting', retry: { within: 60 } });
    const waiting = await waitingState(sent.json.id, url);
    expect(waiting).toMatchObject({ status: 'pending', in_queue: 1, attempts: [{ status_code: 429, waited_ms: 1000 }] });
    expect(waiting.next_attempt_at).toBeGreaterThan(waiting.attempts[0].at);
    expect(await settledEnvelope(project, { id: sent.json.id, url, method: GET })).toMatchObject({ status: 'resolved', status_code: 200 });
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 2 });
  });

  it('holds the requests behind it: the next one in its queue is sent only after it settles', async () => {
    const { url } = busy(1);
    const path = uniquePath('/echo/bp-behind');
    const first = await forward(project, { url, method: GET, queue: 'bp-order', retry: true });
    const second = await forward(project, { url: `${origin}${path}`, method: GET, queue: 'bp-order' });
    expect(second.json).toMatchObject({ status: 'pending', in_queue: 2 });
    const firstDone = await settledEnvelope(project, { id: first.json.id, url, method: GET });
    const secondDone = await settledEnvelope(project, { id: second.json.id, url: `${origin}${path}`, method: GET });
    expect(firstDone).toMatchObject({ status: 'resolved', status_code: 200 });
    expect(secondDone.executed).toBeGreaterThanOrEqual(firstDone.responded);
    expect(await received(path)).toBe(1);
  });

  it('falls back to the backoff when Retry-After is garbage', async () => {
    const { key, url } = busy(2, 'soon, maybe');
    const sent = await forward(project, { url, method: GET, queue: 'bp-garbage', retry: true });
    const done = await settledEnvelope(project, { id: sent.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 200 });
    // The test settings' backoff: 200 ms, then 400 ms, each with jitter (half to all of it).
    const waits = (done.attempts as Array<{ waited_ms: number }>).map((attempt) => attempt.waited_ms);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(100);
    expect(waits[0]).toBeLessThanOrEqual(200);
    expect(waits[1]).toBeGreaterThanOrEqual(200);
    expect(waits[1]).toBeLessThanOrEqual(400);
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 3 });
  });

  it('settles with the 429 as it came when the wait would end after `within`', async () => {
    const { key, url } = busy(5, '30');
    const sent = await forward(project, { url, method: GET, queue: 'bp-within', retry: { within: 10 } });
    const done = await settledEnvelope(project, { id: sent.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 429, response_body: { error: 'rate limited', calls: 1 } });
    expect(done).not.toHaveProperty('attempts');
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 1 });
  });

  it('loses nothing when its object restarts mid-wait: sent again when its time comes, not before, and the queue behind it waits', async () => {
    const { key, url } = busy(1);
    const path = uniquePath('/echo/bp-restart');
    const first = await forward(project, { url, method: GET, queue: 'bp-restart', retry: true });
    const second = await forward(project, { url: `${origin}${path}`, method: GET, queue: 'bp-restart' });
    const waiting = await waitingState(first.json.id, url);

    // Resets every object instance (storage kept), as a crash or a deploy would: the new one runs every queue's job at once.
    await abortAllDurableObjects();

    const firstDone = await settledEnvelope(project, { id: first.json.id, url, method: GET });
    expect(firstDone).toMatchObject({ status: 'resolved', status_code: 200, attempts: [{ status_code: 429, waited_ms: 1000 }] });
    expect(firstDone.executed).toBeGreaterThanOrEqual(waiting.next_attempt_at);
    const secondDone = await settledEnvelope(project, { id: second.json.id, url: `${origin}${path}`, method: GET });
    expect(secondDone.executed).toBeGreaterThanOrEqual(firstDone.responded);
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 2 });
    expect(await received(path)).toBe(1);
  });

  it('can be cancelled while it waits, and the queue behind it goes on at once', async () => {
    const { key, url } = busy(5, '60');
    const path = uniquePath('/echo/bp-after-cancel');
    const first = await forward(project, { url, method: GET, queue: 'bp-cancel', retry: true });
    const second = await forward(project, { url: `${origin}${path}`, method: GET, queue: 'bp-cancel' });
    await waitingState(first.json.id, url);
    expect((await cancel(project, { id: first.json.id, url, method: GET })).json).toMatchObject({ removed: true });
    expect(await settledEnvelope(project, { id: second.json.id, url: `${origin}${path}`, method: GET })).toMatchObject({ status: 'resolved' });
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 1 });
  });
});

describe('a waiting request with expires', () => {
  it('is gone at its time, and the queue behind it goes on', async () => {
    const { key, url } = busy(5, '60');
    const path = uniquePath('/echo/bp-after-expiry');
    const first = await forward(project, { url, method: GET, queue: 'bp-expires', retry: true, expires: 1 });
    const second = await forward(project, { url: `${origin}${path}`, method: GET, queue: 'bp-expires' });
    await waitingState(first.json.id, url);
    expect(await settledEnvelope(project, { id: second.json.id, url: `${origin}${path}`, method: GET })).toMatchObject({ status: 'resolved' });
    expect((await poll(project, { id: first.json.id, url, method: GET })).status).toBe(404);
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 1 });
  });
});

describe('without retry (the spec unchanged)', () => {
  it('a 429 settles at once with that status and nothing is sent again', async () => {
    const { key, url } = busy(1);
    const sent = await forward(project, { url, method: GET, queue: 'bp-plain' });
    const done = await settledEnvelope(project, { id: sent.json.id, url, method: GET });
    expect(done).toMatchObject({ status: 'resolved', status_code: 429 });
    expect(done).not.toHaveProperty('attempts');
    expect(await loopback(`/calls/${key}`)).toEqual({ calls: 1 });
  });
});

describe('refused retry values', () => {
  it.each([
    ['a direct request (no queue, poll or stream)', { retry: true }, 'retry', /needs a queued request/],
    ['a string', { queue: 'bp-refused', retry: 'yes' }, 'retry', /./],
    ['a zero within', { queue: 'bp-refused', retry: { within: 0 } }, 'retry.within', /at least 1 second/],
    ['a within over a day', { queue: 'bp-refused', retry: { within: 86_401 } }, 'retry.within', /at most 86400 seconds/],
    ['a fractional within', { queue: 'bp-refused', retry: { within: 1.5 } }, 'retry.within', /whole number of seconds/],
    ['a within in words', { queue: 'bp-refused', retry: { within: '1h' } }, 'retry.within', /whole number of seconds/],
    ['an unknown member', { queue: 'bp-refused', retry: { within: 5, times: 3 } }, 'retry.times', /./],
  ])('%s is INVALID_PARAMETER naming the field, and nothing is sent', async (_what, extra, field, message = /./) => {
    const path = uniquePath('/echo/bp-refused');
    const res = await forward(project, { url: `${origin}${path}`, method: GET, ...extra });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field } });
    expect(res.json.message).toMatch(message);
    expect(await received(path)).toBe(0);
  });

  it('retry: false on a direct request is accepted (it asks for nothing)', async () => {
    const path = uniquePath('/echo/bp-false');
    const res = await forward(project, { url: `${origin}${path}`, method: GET, retry: false });
    expect(res.status, res.text).toBe(200);
  });
});
