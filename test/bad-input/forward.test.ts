/**
 * Request forwarding's bad-input table (tables/forward.ts), then the bad input that needs a request of its own:
 * another caller's id, an expired id, cancelling twice, and 10,000 history requests in a row.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/api';
import { cancel, eventually, forward, history, origin, poll, received, settledEnvelope } from '../forward/support';
import { runCases } from './runner';
import { FORWARD_CASES_PATH, forwardCases } from './tables/forward';

runCases('request forwarding', forwardCases());

describe('request forwarding: after every case', () => {
  it('nothing reached the destination the dispatch cases aim at', async () => {
    expect(await received(FORWARD_CASES_PATH)).toBe(0);
  });
});

describe('request forwarding: ids that find nothing', () => {
  let project: TestProject;
  const url = `${origin}/echo/bad-input-forward-ids`;
  beforeAll(async () => {
    project = await createProject();
  });

  it("another caller's id: poll 404 'Request not found.', cancel removes nothing, the request is untouched", async () => {
    const res = await forward(project, { url, method: 'GET', queue: 'ids' });
    const address = { id: res.json.id, url, method: 'GET' };
    await settledEnvelope(project, address);
    const stranger = { headers: { 'cf-connecting-ip': '198.51.100.200', 'user-agent': 'stranger' } };
    expect(await poll(project, address, stranger)).toMatchObject({ status: 404, json: { code: 'NOT_FOUND', message: 'Request not found.' } });
    expect((await cancel(project, address, stranger)).json).toEqual({ removed: false, message: 'Request not found.' });
    expect((await poll(project, address)).json.status).toBe('resolved');
  });

  it('an expired id: poll 404, cancel removes nothing', async () => {
    const res = await forward(project, { url, method: 'GET', queue: 'ids', expires: 1 });
    const address = { id: res.json.id, url, method: 'GET' };
    await eventually('expired', async () => (await poll(project, address)).status === 404);
    expect((await poll(project, address)).json).toMatchObject({ code: 'NOT_FOUND', message: 'Request not found.' });
    expect((await cancel(project, address)).json).toEqual({ removed: false, message: 'Request not found.' });
  });

  it('cancelling twice: the second removes nothing', async () => {
    const gate = crypto.randomUUID();
    await forward(project, { url: `${origin}/gate/hold/${gate}`, method: 'GET', queue: 'twice' });
    const res = await forward(project, { url, method: 'GET', queue: 'twice' });
    const address = { id: res.json.id, url, method: 'GET' };
    expect((await cancel(project, address)).json.removed).toBe(true);
    expect((await cancel(project, address)).json).toEqual({ removed: false, message: 'Request not found.' });
    await fetch(`${origin}/gate/open/${gate}`);
  });

  it('10,000 history requests in a row (10 at a time, from 10 addresses) all answer 200', async () => {
    const statuses = new Map<number, number>();
    let next = 0;
    // One address past 2,000 reads in 10 s is limited (docs/limits.md, flood control): ten addresses stay under it.
    const worker = async (_: unknown, w: number) => {
      const as = { headers: { 'cf-connecting-ip': `198.51.100.${w + 1}` } };
      while (next < 10_000) {
        next += 1;
        const res = await history(project, { url, method: 'GET', limit: '5' }, as);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    expect(Object.fromEntries(statuses)).toEqual({ 200: 10_000 });
  }, 300_000);
});
