/**
 * Settled streams' pieces leave the caller's object (issue 24): a while after a streamed request settled
 * its pieces move from the object's SQLite to one R2 object, `fwd/<service>/<caller hash>/<id>/stream`;
 * polls with a cursor, the owner's view and finalize answer exactly as before; finalize and expires
 * remove the object. A request's `expires` is kept to its time, whatever else the object's alarm runs.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { forwardCaller } from '../../src/forward/caller';
import { call, createProject, type TestProject } from '../helpers/api';
import { generatedText } from './generated-text';
import { eventually, finalize, forward, origin, poll, pollSince, readStream } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const key = () => crypto.randomUUID();

async function visitor() {
  const caller = await forwardCaller({ kind: 'anonymous' }, '0.0.0.0', '');
  return { serviceId: project.service_id, callerKey: caller.key };
}

/** Where the visitor's request's pieces go in R2. */
async function objectKey(id: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode((await visitor()).callerKey));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest).subarray(0, 18)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
  return `fwd/${project.service_id}/${hash}/${id}/stream`;
}

/** The visitor's object's pieces of the request still in SQLite. */
async function piecesInSqlite(id: string): Promise<number> {
  return runInDurableObject(
    forwardQueueStub(env, await visitor()),
    (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM chunks c JOIN requests r ON r.seq = c.request WHERE r.id = ?', id).one().n,
  );
}

/** Brings the object's scheduled moves to now and runs its alarm (as it would run a minute after settling). */
async function moveNow(): Promise<void> {
  const stub = forwardQueueStub(env, await visitor());
  await runInDurableObject(stub, (_instance, state) => {
    state.storage.sql.exec("UPDATE jobs SET run_at = 0 WHERE kind = 'move-stream'");
  });
  await runDurableObjectAlarm(stub);
}

async function settledStream(url: string, data?: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await forward(project, { url, method: 'POST', stream: true, ...(data ? { data } : {}), ...extra });
  expect(res.status, res.text).toBe(200);
  const request = { id: res.json.id as string, url, method: 'POST' };
  const read = await readStream(project, request);
  return { request, read };
}

/** Every answer a reader can get: a poll with each cursor (every page), without one, and the owner's view. */
async function answers(request: { id: string; url: string; method: string }, lastSeq: number) {
  const cursors = [0, 1, 2, Math.floor(lastSeq / 2), lastSeq - 1, lastSeq, lastSeq + 7];
  const polls = [];
  for (const since of cursors) polls.push((await pollSince(project, request, since)).json);
  const plain = (await poll(project, request)).json;
  const owner = (await call('GET', `/v1/projects/${project.service_id}/forward/requests/${request.id}`, { token: project.owner_key })).json;
  return { polls, plain, owner };
}

describe("a settled stream's pieces", () => {
  it('move to one R2 object and every poll, page by page, and the owner view answer exactly as before', async () => {
    const url = `${origin}/generated/${key()}?repeat=8000&piece=4096`;
    const { request, read } = await settledStream(url);
    expect(read.text).toBe(generatedText(8_000));
    const lastSeq = read.seqs[read.seqs.length - 1];
    const before = await answers(request, lastSeq);
    expect(before.polls[0].more).toBe(true);
    expect(await piecesInSqlite(request.id)).toBe(lastSeq);

    await moveNow();
    expect(await piecesInSqlite(request.id)).toBe(0);
    const object = await env.BODIES.head(await objectKey(request.id));
    expect(object?.size).toBe(new TextEncoder().encode(read.text).length);
    expect(await answers(request, lastSeq)).toEqual(before);
    expect((await readStream(project, request)).text).toBe(read.text);
  }, 60_000);

  it('keep multi-byte characters and a byte-order mark whole, piece by piece', async () => {
    const pieces = ['\uFEFFdata: é\n\n', '😀😀', 'data: €\n\n', 'tail'];
    const { request, read } = await settledStream(`${origin}/pieces/${key()}`, { pieces, gap_ms: 40 });
    const before = await answers(request, read.seqs.length);
    await moveNow();
    expect(await piecesInSqlite(request.id)).toBe(0);
    expect(await answers(request, read.seqs.length)).toEqual(before);
    expect(read.text).toBe(pieces.join(''));
  });

  it('after the move, finalize answers as before, the kept version is read, and the R2 object is deleted', async () => {
    const { request } = await settledStream(`${origin}/pieces/${key()}`, { pieces: ['a', 'b'], gap_ms: 40 });
    await moveNow();
    const objectName = await objectKey(request.id);
    expect(await env.BODIES.head(objectName)).not.toBeNull();
    expect((await finalize(project, { ...request, data: { kept: true } })).json).toEqual({ finalized: true, message: 'Finalized.' });
    expect((await pollSince(project, request, 0)).json).toEqual({ kept: true });
    await eventually('the R2 object is deleted', async () => (await env.BODIES.head(objectName)) === null);
  });

  it('after the move, expires removes the request and its R2 object', async () => {
    const { request } = await settledStream(`${origin}/pieces/${key()}`, { pieces: ['x', 'y'], gap_ms: 40 }, { expires: 2 });
    await moveNow();
    const objectName = await objectKey(request.id);
    expect(await env.BODIES.head(objectName)).not.toBeNull();
    expect((await pollSince(project, request, 0)).json.chunks.map((c: { txt: string }) => c.txt).join('')).toBe('xy');
    await eventually('the request expired', async () => (await poll(project, request)).status === 404);
    await eventually('the R2 object is deleted', async () => (await env.BODIES.head(objectName)) === null);
  });
});

describe('expires', () => {
  it('a streamed request with expires keeps its pieces until that time, while the object runs its other jobs', async () => {
    const { request } = await settledStream(`${origin}/pieces/${key()}`, { pieces: ['kept ', 'for an hour'], gap_ms: 40 }, { expires: 3600 });
    await runDurableObjectAlarm(forwardQueueStub(env, await visitor()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await pollSince(project, request, 0);
    expect(read.status, read.text).toBe(200);
    expect(read.json.chunks.map((c: { txt: string }) => c.txt).join('')).toBe('kept for an hour');
  });
});
