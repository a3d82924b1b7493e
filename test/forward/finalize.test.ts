/**
 * forwardRequestFinalize (spec 3, 4.3): only the caller's own streamed, settled requests (failed ones
 * included); the data is kept verbatim as the response, the pieces are released, repeating replaces.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FINALIZE_DATA_BYTES } from '../../schemas/forward-rules';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { eventually, finalize, forward, heldAtGate, history, loopback, origin, poll, pollSince, readStream, settledEnvelope } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const key = () => crypto.randomUUID();

async function settledStream(pieces: string[], extra: Record<string, unknown> = {}) {
  const url = `${origin}/pieces/${key()}`;
  const res = await forward(project, { url, method: 'POST', stream: true, data: { pieces, ...extra } });
  const request = { id: res.json.id as string, url, method: 'POST' };
  const read = await readStream(project, request);
  return { request, read };
}

describe('finalize', () => {
  it('keeps data verbatim as the response: a later poll answers it, the history lists it, the pieces are gone', async () => {
    const { request, read } = await settledStream(['data: he', 'llo\n\n'], { gap_ms: 30 });
    const kept = { answer: 'hello', status: 'mine', nested: [1, { two: null }] };
    expect((await finalize(project, { ...request, data: kept })).json).toEqual({ finalized: true, message: 'Finalized.' });
    // With a cursor: the kept version itself, none of the envelope's members.
    expect((await pollSince(project, request, 0)).json).toEqual(kept);
    // Without one: the envelope, with the kept version as its body.
    const envelope = (await poll(project, request)).json;
    expect(envelope).toMatchObject({ status: 'resolved', response_body: kept, responded: read.envelope.responded });
    expect(envelope.updated).toBeGreaterThanOrEqual(read.envelope.updated);
    await eventually('the history lists the kept version', async () => {
      const item = (await history(project, { url: request.url, method: 'POST' })).json.list[0];
      return JSON.stringify(item?.response_body) === JSON.stringify(kept) && item.responded === read.envelope.responded;
    });
  });

  it('replaces the kept version when repeated; no data keeps null', async () => {
    const { request } = await settledStream(['x']);
    await finalize(project, { ...request, data: 'first' });
    expect((await finalize(project, { ...request, data: 'second' })).json.finalized).toBe(true);
    expect((await pollSince(project, request, 0)).json).toBe('second');
    expect((await finalize(project, { ...request })).json.finalized).toBe(true);
    expect((await pollSince(project, request, 0)).json).toBeNull();
  });

  it('finalizes a failed stream too', async () => {
    const { request, read } = await settledStream(['part'], { cut: true });
    expect(read.envelope.status).toBe('failed');
    expect((await finalize(project, { ...request, data: read.text })).json).toEqual({ finalized: true, message: 'Finalized.' });
    expect((await pollSince(project, request, 0)).json).toBe('part');
  });

  it('refuses a request not finished yet', async () => {
    const gate = key();
    const headUrl = `${origin}/gate/hold/${gate}`;
    await forward(project, { url: headUrl, method: 'GET', queue: 'fin-wait' });
    const url = `${origin}/pieces/${key()}`;
    const running = await forward(project, { url, method: 'POST', stream: true, queue: 'fin-wait', data: { pieces: ['a'] } });
    await heldAtGate(gate);
    const request = { id: running.json.id, url, method: 'POST' };
    expect((await finalize(project, { ...request, data: 1 })).json).toEqual({ finalized: false, message: 'The request has not finished yet.' });
    await loopback(`/gate/open/${gate}`);
    await readStream(project, request);
  });

  it('refuses a request sent without stream, queued or direct', async () => {
    const url = `${origin}/echo/${key()}`;
    const queued = await forward(project, { url, method: 'GET', queue: 'fin-plain' });
    const address = { id: queued.json.id, url, method: 'GET' };
    await settledEnvelope(project, address);
    const message = 'The request was not sent with stream, so its response is already stored.';
    expect((await finalize(project, { ...address, data: 1 })).json).toEqual({ finalized: false, message });
    await eventually('the settled request reached the history', async () => (await history(project, { url, method: 'GET' })).json.list.length === 1);
    await eventually('it is refused from the history too', async () => (await finalize(project, { ...address, data: 1 })).json.message === message);
  });

  it("answers 'Request not found.' for an unknown id and for another caller's request", async () => {
    const { request } = await settledStream(['mine']);
    const user = await mintUser(project);
    const notFound = { finalized: false, message: 'Request not found.' };
    expect((await finalize(project, { ...request, data: 'theirs' }, { token: user.id_token })).json).toEqual(notFound);
    expect((await finalize(project, { ...request, data: 'theirs' }, { headers: { 'user-agent': 'another browser' } })).json).toEqual(notFound);
    expect((await finalize(project, { ...request, id: `${request.id.split(':')[0]}:AAAAAAAAAAAAAAAA`, data: 1 })).json).toEqual(notFound);
    expect((await pollSince(project, request, 0)).json.chunks.map((c: { txt: string }) => c.txt).join('')).toBe('mine');
  });

  it('refuses data over the limit, a missing address and unknown fields, changing nothing', async () => {
    const { request } = await settledStream(['kept']);
    const big = 'x'.repeat(MAX_FINALIZE_DATA_BYTES + 10);
    const tooBig = await finalize(project, { ...request, data: big });
    expect(tooBig.status).toBeGreaterThanOrEqual(400);
    expect(tooBig.status).toBeLessThan(500);
    const tenMegabytes = await finalize(project, { ...request, data: 'y'.repeat(10 * 1024 * 1024) });
    expect([400, 413]).toContain(tenMegabytes.status);
    expect((await finalize(project, { id: request.id, data: 1 })).json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await finalize(project, { ...request, data: 1, extra: true })).json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await pollSince(project, request, 0)).json.chunks.map((c: { txt: string }) => c.txt).join('')).toBe('kept');
  });
});
