/**
 * Streamed forwarding (spec 4.3, issue 12): the answer is read piece by piece into the chunk store of the
 * caller's queue object, read back after a cursor, kept until finalize, cancel or expiry; the key never
 * reaches a reader, even split across pieces.
 */
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { forwardCaller } from '../../src/forward/caller';
import { createProject, type TestProject } from '../helpers/api';
import { GENERATED_LINE, generatedText } from './generated-text';
import { cancel, eventually, forward, history, loopback, origin, poll, pollSince, readStream } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const key = () => crypto.randomUUID();

/** The queue object of the tests' visitor (no IP, no user agent). */
async function visitorQueues() {
  const caller = await forwardCaller({ kind: 'anonymous' }, '0.0.0.0', '');
  return forwardQueueStub(env, { serviceId: project.service_id, callerKey: caller.key });
}

/** Rows and text stored in the chunk store of the visitor's queue object. */
async function storedChunks(): Promise<{ rows: number; chars: number }> {
  return runInDurableObject(await visitorQueues(), (_instance, state) =>
    state.storage.sql.exec<{ rows: number; chars: number }>('SELECT COUNT(*) AS rows, COALESCE(SUM(LENGTH(txt)), 0) AS chars FROM chunks').one(),
  );
}

/** Bytes of the SQLite database of the visitor's queue object. */
async function databaseSize(): Promise<number> {
  return runInDurableObject(await visitorQueues(), (_instance, state) => state.storage.sql.databaseSize);
}

async function streamed(url: string, extra: Record<string, unknown> = {}) {
  const res = await forward(project, { url, method: 'POST', stream: true, ...extra });
  expect(res.status).toBe(200);
  return { id: res.json.id as string, url, method: 'POST', reply: res.json };
}

describe('a streamed request', () => {
  it('is queued (a queue generated when none is named), relays every piece in order and settles with a status and no body', async () => {
    const url = `${origin}/pieces/${key()}`;
    const pieces = ['data: one\n\n', 'data: two\n\n', 'data: three\n\n'];
    const request = await streamed(url, { data: { pieces, gap_ms: 30 } });
    expect(request.reply).toMatchObject({ status: 'pending', in_queue: 1 });
    expect(request.reply.queue_name).toMatch(/^auto-/);
    const read = await readStream(project, request);
    expect(read.text).toBe(pieces.join(''));
    expect(read.seqs).toEqual(read.seqs.map((_, i) => i + 1));
    expect(read.envelope).toMatchObject({ status: 'resolved', status_code: 200, stream: true, more: false });
    expect(read.envelope.response_body).toBeUndefined();
    // A poll without a cursor answers the plain envelope.
    const plain = (await poll(project, request)).json;
    expect(plain).toMatchObject({ status: 'resolved', status_code: 200 });
    expect(plain).not.toHaveProperty('chunks');
    await eventually('the history lists it with no body', async () => {
      const item = (await history(project, { url, method: 'POST' })).json.list[0];
      return item?.status === 'resolved' && item.stream === true && item.response_body === null;
    });
  });

  it('never sends the stream flag to the destination', async () => {
    const request = await streamed(`${origin}/echo/${key()}`, { data: { asked: true } });
    const read = await readStream(project, request);
    expect(JSON.parse(read.text)).toMatchObject({ body: JSON.stringify({ asked: true }) });
    expect(read.text).not.toContain('stream');
  });

  it('never splits a multi-byte character across pieces, even when the destination writes its bytes apart', async () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    const clef = Buffer.from('𝄞b', 'utf8'); // f0 9d 84 9e 62
    const pieces = [euro.subarray(0, 2), Buffer.concat([euro.subarray(2), clef.subarray(0, 1)]), clef.subarray(1, 3), clef.subarray(3)].map((b) => ({
      b64: b.toString('base64'),
    }));
    const request = await streamed(`${origin}/pieces/${key()}`, { data: { pieces, gap_ms: 40 } });
    const read = await readStream(project, request);
    expect(read.text).toBe('a€𝄞b');
    expect(read.text).not.toContain('\uFFFD');
    const res = await pollSince(project, request, 0);
    for (const chunk of res.json.chunks as { txt: string }[]) expect(chunk.txt).not.toContain('\uFFFD');
  });

  it('packs pieces that arrive close together into few stored rows and stores no more text than arrived', async () => {
    const before = await storedChunks();
    const pieces = Array.from({ length: 400 }, (_, i) => `data: ${i}\n\n`);
    const request = await streamed(`${origin}/pieces/${key()}`, { data: { pieces, gap_ms: 0 } });
    const read = await readStream(project, request);
    expect(read.text).toBe(pieces.join(''));
    const after = await storedChunks();
    expect(after.rows - before.rows).toBeLessThanOrEqual(40);
    expect(after.chars - before.chars).toBe(read.text.length);
  });

  it('relays 10 MB byte-identical, read back in capped pages, stored in at most 1.1 times its size', async () => {
    const repeat = 250_000; // 42 bytes a line
    const sizeBefore = await databaseSize();
    const request = await streamed(`${origin}/generated/${key()}?repeat=${repeat}&piece=65536`);
    const read = await readStream(project, request);
    const payload = new TextEncoder().encode(generatedText(repeat)).length;
    expect((await databaseSize()) - sizeBefore).toBeLessThanOrEqual(1.1 * payload);
    expect(read.envelope.status).toBe('resolved');
    expect(read.text.length).toBe(generatedText(repeat).length);
    expect(read.text === generatedText(repeat)).toBe(true);
    expect(read.seqs).toEqual(read.seqs.map((_, i) => i + 1));
  }, 60_000);
});

describe('reading with a cursor', () => {
  it('answers only the pieces after since; beyond the end answers none with the cursor kept', async () => {
    const pieces = ['a', 'b', 'c', 'd'];
    const request = await streamed(`${origin}/pieces/${key()}`, { data: { pieces, gap_ms: 40 } });
    const whole = await readStream(project, request);
    const lastSeq = whole.seqs[whole.seqs.length - 1];
    const tail = await readStream(project, request, 1);
    expect(whole.text.endsWith(tail.text)).toBe(true);
    expect(tail.seqs[0]).toBe(2);
    const beyond = (await pollSince(project, request, lastSeq + 50)).json;
    expect(beyond).toMatchObject({ chunks: [], last_seq: lastSeq + 50, more: false, status: 'resolved' });
  });

  it('refuses a cursor that is not a whole number of 0 or more', async () => {
    const request = await streamed(`${origin}/pieces/${key()}`, { data: { pieces: ['x'] } });
    for (const since of ['-1', '1.5', 'abc', '', '1e3']) {
      const res = await pollSince(project, request, since);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', message: 'since: must be a whole number, 0 or more.' });
    }
  });

  it('answers a request sent without stream with stream false and no pieces', async () => {
    const url = `${origin}/echo/${key()}`;
    const res = await forward(project, { url, method: 'GET', queue: 'plain' });
    const request = { id: res.json.id, url, method: 'GET' };
    const read = await readStream(project, request);
    expect(read.envelope).toMatchObject({ stream: false, chunks: [], last_seq: 0, more: false, status: 'resolved' });
    expect(read.envelope.response_body).toMatchObject({ method: 'GET' });
  });
});

describe('a streamed request that fails', () => {
  it('keeps an error answer (400 or more) on the request and relays none of it', async () => {
    const request = await streamed(`${origin}/pieces/${key()}`, { data: { pieces: ['{"error":"quota"}'], status: 429 } });
    const read = await readStream(project, request);
    expect(read.text).toBe('');
    expect(read.envelope).toMatchObject({
      status: 'failed',
      status_code: 429,
      error: { code: 'REQUEST_FAILED', message: 'The destination answered 429.', status_code: 429, body: { error: 'quota' }, truncated: false },
    });
  });

  it('keeps the pieces that arrived before the destination closed mid-answer', async () => {
    const request = await streamed(`${origin}/pieces/${key()}`, { data: { pieces: ['data: 1\n\n', 'data: 2\n\n', 'data: 3'], gap_ms: 30, cut: true } });
    const read = await readStream(project, request);
    expect(read.text).toBe('data: 1\n\ndata: 2\n\ndata: 3');
    expect(read.envelope.status).toBe('failed');
    expect(read.envelope.error.code).toBe('REQUEST_FAILED');
    expect(read.envelope.error.message).toMatch(/^The streamed answer ended before completion/);
    expect(read.envelope.error.chunks).toBe(read.seqs.length);
  });

  it('ends a stream that never ends at the documented limit, keeping what arrived', async () => {
    const k = key();
    const request = await streamed(`${origin}/generated/${k}?repeat=100000000&piece=256&gap=5`);
    const read = await readStream(project, request);
    expect(read.envelope).toMatchObject({ status: 'failed', error: { code: 'TIMEOUT' } });
    expect(read.envelope.error.message).toMatch(/still sending after \d+ s, the longest a stream is relayed/);
    expect(read.text.length).toBeGreaterThan(0);
    expect(generatedText(1 + Math.ceil(read.text.length / GENERATED_LINE.length)).startsWith(read.text)).toBe(true);
    await eventually('the destination connection closed', async () => (await loopback(`/pieces-state/${k}`)).closed === true);
  }, 40_000);
});

describe('cancelling a running stream', () => {
  it('closes the destination connection, discards the pieces and stores nothing after', async () => {
    const k = key();
    const request = await streamed(`${origin}/generated/${k}?repeat=100000000&piece=64&gap=10`);
    await eventually('some pieces are stored', async () => (await pollSince(project, request, 0)).json.chunks?.length > 0);
    expect((await cancel(project, request)).json).toEqual({ removed: true, message: 'The running request was cancelled.' });
    await eventually('the destination connection closed', async () => (await loopback(`/pieces-state/${k}`)).closed === true);
    const written = (await loopback(`/pieces-state/${k}`)).written;
    expect((await poll(project, request)).status).toBe(404);
    const rows = await runInDurableObject(
      await visitorQueues(),
      (_instance, state) =>
        state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM chunks c JOIN requests r ON r.seq = c.request WHERE r.id = ?', request.id).one().n,
    );
    expect(rows).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await loopback(`/pieces-state/${k}`)).written).toBe(written);
  });
});

describe('an object instance that dies mid-stream', () => {
  it('keeps the stored pieces: the request fails as interrupted and a reader reads them all', async () => {
    const k = key();
    const request = await streamed(`${origin}/generated/${k}?repeat=100000&piece=64&gap=10`);
    await eventually('some pieces are stored', async () => (await pollSince(project, request, 0)).json.chunks?.length > 2);
    const before = await readStreamSoFar(request);
    await abortAllDurableObjects();
    const read = await readStream(project, request);
    expect(read.envelope).toMatchObject({ status: 'failed', error: { code: 'REQUEST_FAILED' } });
    expect(read.envelope.error.chunks).toBe(read.seqs.length);
    expect(read.text.startsWith(before)).toBe(true);
    expect(generatedText(100_000).startsWith(read.text)).toBe(true);
  });
});

/** The text stored so far (one capped read at a time until no page is left). */
async function readStreamSoFar(request: { id: string; url: string; method: string }): Promise<string> {
  let text = '';
  let cursor = 0;
  for (;;) {
    const res = (await pollSince(project, request, cursor)).json;
    text += (res.chunks as { txt: string }[]).map((chunk) => chunk.txt).join('');
    cursor = res.last_seq;
    if (!res.more) return text;
  }
}
