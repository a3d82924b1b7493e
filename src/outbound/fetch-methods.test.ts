import { describe, expect, inject, it } from 'vitest';
import { sendOutbound, type OutboundMethod, type OutboundOptions } from './fetch';

const origin = inject('loopbackOrigin');
const options = (): OutboundOptions => ({ env: { ALLOW_PRIVATE_DESTINATIONS: 'true' }, deadline: Date.now() + 20_000 });
const BODY_METHODS: OutboundMethod[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** What /echo-bytes received: the method, the content-type and the body bytes. */
async function bytesReceived(method: OutboundMethod, body: Uint8Array, contentType: string) {
  const response = await sendOutbound({ method, url: `${origin}/echo-bytes`, headers: new Headers({ 'content-type': contentType }), body, hops: 0 }, options());
  const echoed = JSON.parse(response.body) as { method: string; contentType: string; base64: string };
  return { method: echoed.method, contentType: echoed.contentType, bytes: Uint8Array.from(atob(echoed.base64), (ch) => ch.charCodeAt(0)) };
}

describe('one send function for every method and body', () => {
  it('sends POST, PUT, PATCH and DELETE to the destination with their text body', async () => {
    for (const method of BODY_METHODS) {
      const body = `body of ${method} ✓`;
      const response = await sendOutbound({ method, url: `${origin}/echo`, headers: new Headers({ 'content-type': 'text/plain' }), body, hops: 0 }, options());
      expect(JSON.parse(response.body), method).toMatchObject({ method, path: '/echo', body });
    }
  });

  it('sends GET without a body', async () => {
    const response = await sendOutbound({ method: 'GET', url: `${origin}/echo`, headers: new Headers(), hops: 0 }, options());
    expect(JSON.parse(response.body)).toMatchObject({ method: 'GET', body: '' });
  });

  it('sends HEAD and answers its status and headers with no body read', async () => {
    const response = await sendOutbound({ method: 'HEAD', url: `${origin}/echo-bytes`, headers: new Headers(), hops: 0 }, options());
    expect(response).toMatchObject({ status: 200, body: '' });
    expect(response.headers['x-method']).toBe('HEAD');
    const streamed = await sendOutbound({ method: 'HEAD', url: `${origin}/echo`, headers: new Headers(), hops: 0 }, { ...options(), answer: 'streamed' });
    expect(streamed.headers['x-echo']).toBe('yes');
    expect(await streamed.body.getReader().read()).toMatchObject({ done: true });
  });

  it('refuses a body on GET or HEAD before anything is sent', async () => {
    const path = `/echo/body-on-get-${crypto.randomUUID()}`;
    for (const method of ['GET', 'HEAD'] as const) {
      await expect(sendOutbound({ method, url: `${origin}${path}`, headers: new Headers(), body: 'x', hops: 0 }, options()), method).rejects.toThrow(TypeError);
    }
    const received = (await (await fetch(`${origin}/received?path=${encodeURIComponent(path)}`)).json()) as { count: number };
    expect(received.count).toBe(0);
  });

  it('sends a bytes body byte for byte on every method that carries one, invalid UTF-8 included', async () => {
    const bytes = Uint8Array.from({ length: 512 }, (_, i) => (i * 7 + 0xc0) % 256);
    for (const method of BODY_METHODS) {
      const received = await bytesReceived(method, bytes, 'application/octet-stream');
      expect(received.method).toBe(method);
      expect(received.bytes, method).toEqual(bytes);
    }
  });

  it('relays a multipart form already encoded as bytes with its content-type, files included', async () => {
    const form = new FormData();
    form.append('name', 'Zoë');
    form.append('file', new File([new Uint8Array([0xff, 0x00, 0xfe, 0x80])], 'raw.bin', { type: 'application/octet-stream' }));
    const encoded = new Request('https://form.invalid/', { method: 'POST', body: form });
    const contentType = encoded.headers.get('content-type') as string;
    const bytes = new Uint8Array(await encoded.arrayBuffer());

    const received = await bytesReceived('POST', bytes, contentType);
    expect(received.contentType).toBe(contentType);
    expect(received.bytes).toEqual(bytes);
    const relayed = await new Request('https://form.invalid/', {
      method: 'POST',
      headers: { 'content-type': received.contentType },
      body: received.bytes,
    }).formData();
    expect(relayed.get('name')).toBe('Zoë');
    expect(new Uint8Array(await (relayed.get('file') as File).arrayBuffer())).toEqual(new Uint8Array([0xff, 0x00, 0xfe, 0x80]));
  });
});
