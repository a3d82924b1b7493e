import { describe, expect, inject, it } from 'vitest';
import { OutboundError } from './errors';
import { MAX_RESPONSE_BYTES, sendOutbound, type OutboundRequest, type StreamedOutboundOptions } from './fetch';

const origin = inject('loopbackOrigin');
const streamed = (extra: Partial<StreamedOutboundOptions> = {}): StreamedOutboundOptions => ({
  env: { ALLOW_PRIVATE_DESTINATIONS: 'true' },
  deadline: Date.now() + 20_000,
  answer: 'streamed',
  ...extra,
});
const get = (path: string, headers: Record<string, string> = {}): OutboundRequest => ({
  method: 'GET',
  url: `${origin}${path}`,
  headers: new Headers(headers),
  hops: 0,
});
const loopback = async (path: string) => (await fetch(`${origin}${path}`)).json() as Promise<any>;

/** Reads pieces until the text read ends with a line break. */
async function readLine(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!text.endsWith('\n')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended after ${JSON.stringify(text)}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

async function readFailure(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ error: unknown; bytes: number }> {
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended after ${bytes} bytes`);
      bytes += value.byteLength;
    }
  } catch (error) {
    return { error, bytes };
  }
}

/** Polls the loopback server until the /endless/<key> caller's connection has closed, or `withinMs` passes. */
async function connectionClosed(key: string, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if ((await loopback(`/endless-state/${key}`))?.closed) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('a streamed answer', () => {
  it('passes the body on piece by piece, each as the destination writes it', async () => {
    const key = crypto.randomUUID();
    const response = await sendOutbound(get(`/drip/${key}`), streamed());
    expect(response.status).toBe(200);
    const reader = response.body.getReader();
    // The destination writes each next piece only when asked, so a piece read before then came through alone.
    expect(await readLine(reader)).toBe('piece 1\n');
    expect(await loopback(`/drip-next/${key}`)).toEqual({ written: 2 });
    expect(await readLine(reader)).toBe('piece 2\n');
    expect(await loopback(`/drip-next/${key}`)).toEqual({ written: 3 });
    expect(await readLine(reader)).toBe('piece 3\n');
    await loopback(`/drip-end/${key}`);
    expect(await reader.read()).toMatchObject({ done: true });
  });

  it('fails with too_large after about MAX_RESPONSE_BYTES of an endless body, ends the call and closes the connection', async () => {
    const key = crypto.randomUUID();
    const response = await sendOutbound(get(`/endless/${key}`), streamed());
    const { error, bytes } = await readFailure(response.body.getReader());
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ reason: 'too_large', detail: { limit: MAX_RESPONSE_BYTES } });
    expect(bytes).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(bytes).toBeGreaterThan(MAX_RESPONSE_BYTES - 1024 * 1024);
    // Well inside the 10-second call limit, whose end would also close it.
    expect(await connectionClosed(key, 3_000)).toBe(true);
  });

  it('closes the connection when its reader cancels it', async () => {
    const key = crypto.randomUUID();
    const response = await sendOutbound(get(`/endless/${key}`), streamed());
    const reader = response.body.getReader();
    await reader.read();
    expect(await connectionClosed(key, 200)).toBe(false);
    await reader.cancel();
    expect(await connectionClosed(key, 3_000)).toBe(true);
  });

  it('fails with timeout when the body stops arriving within the call limit', async () => {
    const response = await sendOutbound(get('/stall-body'), streamed({ callMs: 200 }));
    expect(response.status).toBe(200);
    const { error } = await readFailure(response.body.getReader());
    expect(error).toMatchObject({ reason: 'timeout' });
  });

  it('replaces the secret in status text and headers before answering', async () => {
    const secret = 'sk_live_Zx9/q+w=';
    const response = await sendOutbound(get('/reflect', { 'x-api-key': secret }), streamed({ secret }));
    expect(response.statusText).toBe('OK ${CLIENT_SECRET}');
    expect(response.headers['x-reflect']).toBe('${CLIENT_SECRET}');
    await response.body.cancel();
  });
});
