import { inject, describe, expect, it } from 'vitest';
import { OutboundError } from './errors';
import { callLimitMs, MAX_RESPONSE_BYTES, sendOutbound, type OutboundOptions, type OutboundRequest } from './fetch';

const origin = inject('loopbackOrigin');
const testEnv = { ALLOW_PRIVATE_DESTINATIONS: 'true' };
const options = (extra: Partial<OutboundOptions> = {}): OutboundOptions => ({ env: testEnv, deadline: Date.now() + 20_000, ...extra });
const get = (path: string, headers: Record<string, string> = {}): OutboundRequest => ({
  method: 'GET',
  url: `${origin}${path}`,
  headers: new Headers(headers),
  hops: 0,
});

async function failureOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundError) return { reason: error.reason, message: error.message, detail: error.detail };
    throw error;
  }
  throw new Error('the call did not fail');
}

describe('the outbound fetch wrapper', () => {
  it('answers the whole response: status, lowercase headers and the body text', async () => {
    const request: OutboundRequest = {
      method: 'POST',
      url: `${origin}/echo?a=1`,
      headers: new Headers({ 'X-Test': 'yes', 'content-type': 'text/plain' }),
      body: 'hello',
      hops: 0,
    };
    const response = await sendOutbound(request, options());
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-echo']).toBe('yes');
    const echoed = JSON.parse(response.body);
    expect(echoed).toMatchObject({ method: 'POST', path: '/echo', query: '?a=1', body: 'hello' });
    expect(echoed.headers['x-test']).toBe('yes');
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const response = await sendOutbound(get('/redirect'), options());
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(`${origin}/echo`);
    expect(response.body).toBe('moved');
  });

  it('answers an error status as a response (the caller decides it is a failure)', async () => {
    const response = await sendOutbound(get('/status/500'), options());
    expect(response.status).toBe(500);
  });

  it('fails with timeout when the destination does not answer within the call limit', async () => {
    expect((await failureOf(sendOutbound(get('/stall'), options({ callMs: 200 })))).reason).toBe('timeout');
  });

  it('fails with timeout when the body stops arriving', async () => {
    expect((await failureOf(sendOutbound(get('/stall-body'), options({ callMs: 200 })))).reason).toBe('timeout');
  });

  it('never waits beyond the consumption deadline, even when the call limit is longer', async () => {
    const started = Date.now();
    const failure = await failureOf(sendOutbound(get('/stall'), options({ deadline: Date.now() + 200, callMs: 10_000 })));
    expect(failure.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails with timeout at once when the deadline has passed', async () => {
    expect((await failureOf(sendOutbound(get('/echo'), options({ deadline: Date.now() - 1 })))).reason).toBe('timeout');
  });

  it('fails with too_large on a body over the cap, reading it as a stream (an endless body does not exhaust memory)', async () => {
    const failure = await failureOf(sendOutbound(get('/huge'), options()));
    expect(failure).toMatchObject({ reason: 'too_large', detail: { limit: MAX_RESPONSE_BYTES } });
  });

  it('fails with too_large on a declared length over the cap, and reads a declared length up to it whole', async () => {
    const whole = await sendOutbound(get('/sized/1000'), options({ maxBytes: 1000 }));
    expect(whole.headers['content-length']).toBe('1000');
    expect(whole.body).toBe('x'.repeat(1000));
    expect(await failureOf(sendOutbound(get('/sized/1001'), options({ maxBytes: 1000 })))).toMatchObject({ reason: 'too_large', detail: { limit: 1000 } });
  });

  it('fails with unreachable when nothing listens', async () => {
    expect((await failureOf(sendOutbound({ ...get(''), url: 'http://127.0.0.1:1/' }, options()))).reason).toBe('unreachable');
  });

  it('refuses the loopback server when private destinations are not allowed, and sends nothing', async () => {
    const env = { ALLOW_PRIVATE_DESTINATIONS: 'false' };
    for (const url of [`${origin}/echo`, 'http://localhost:8787/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/']) {
      const failure = await failureOf(sendOutbound({ ...get(''), url }, options({ env })));
      expect(failure.reason, url).toBe('private_destination');
    }
  });

  it('refuses the loopback address written with extra dots or fullwidth dots, and nothing reaches the server', async () => {
    const env = { ALLOW_PRIVATE_DESTINATIONS: 'false' };
    const port = new URL(origin).port;
    const path = `/echo/guard-${crypto.randomUUID()}`;
    const received = async () => ((await (await fetch(`${origin}/received?path=${encodeURIComponent(path)}`)).json()) as { count: number }).count;
    for (const host of ['127.0.0.1..', '127.0.0.1...', '127.1..', '0x7f.1..', '127.0.0.1.', '127。0。0。1', '127.0.0.1%2e%2e', 'LOCALHOST..']) {
      const failure = await failureOf(sendOutbound({ ...get(''), url: `http://${host}:${port}${path}` }, options({ env })));
      expect(failure.reason, host).toBe('private_destination');
    }
    expect(await received()).toBe(0);
    // The same path with private destinations allowed is counted: the count above could have moved.
    await sendOutbound(get(path), options());
    expect(await received()).toBe(1);
  });

  it("holds the call to the Secret Key's Destinations", async () => {
    const failure = await failureOf(sendOutbound(get('/echo'), options({ destinations: ['https://api.example.com/'] })));
    expect(failure).toMatchObject({
      reason: 'destination_not_allowed',
      message: 'Destination is not allowed for this client secret.',
      detail: { refusal: 'not_listed' },
    });
    // A path prefix admits only at a / boundary: /ec does not admit /echo.
    expect(await failureOf(sendOutbound(get('/echo'), options({ destinations: [`${origin}/ec`] })))).toMatchObject({ detail: { refusal: 'not_listed' } });
    const allowed = await sendOutbound(get('/echo'), options({ destinations: [`${origin}/echo`] }));
    expect(allowed.status).toBe(200);
  });

  it('replaces the secret in status text, headers and body, escaped up to three times; four times stays', async () => {
    const secret = 'sk_live_Zx9/q+w=';
    const response = await sendOutbound(get('/reflect', { 'x-api-key': secret }), options({ secret }));
    expect(response.statusText).toBe('OK ${CLIENT_SECRET}');
    expect(response.headers['x-reflect']).toBe('${CLIENT_SECRET}');
    const lines = response.body.split('\n');
    expect(lines.slice(0, 4)).toEqual(['plain: ${CLIENT_SECRET}', 'once: ${CLIENT_SECRET}', 'twice: ${CLIENT_SECRET}', 'thrice: ${CLIENT_SECRET}']);
    expect(lines[4]).toMatch(/^four: %5C%75%30%30/);
    expect(response.body).not.toContain(secret);
  });

  it('fails with timeout when the budget runs out while the response is searched', async () => {
    let calls = 0;
    const deadline = Date.now() + 20_000;
    // The clock passes the deadline once the response is in, during the search.
    const now = () => (calls++ === 0 ? Date.now() : deadline + 1);
    const body = '%41&amp;\\u0041'.repeat(40_000);
    const request: OutboundRequest = { method: 'POST', url: `${origin}/echo`, headers: new Headers({ 'content-type': 'text/plain' }), body, hops: 0 };
    expect((await failureOf(sendOutbound(request, options({ deadline, now, secret: 'never-there' })))).reason).toBe('timeout');
  });

  it('limits each call to 10 seconds, or less when the settings say so', () => {
    expect(callLimitMs({ ALLOW_PRIVATE_DESTINATIONS: 'false' })).toBe(10_000);
    expect(callLimitMs({ ALLOW_PRIVATE_DESTINATIONS: 'false', OUTBOUND_CALL_MS: '2000' })).toBe(2_000);
    expect(callLimitMs({ ALLOW_PRIVATE_DESTINATIONS: 'false', OUTBOUND_CALL_MS: '60000' })).toBe(10_000);
    expect(callLimitMs({ ALLOW_PRIVATE_DESTINATIONS: 'false', OUTBOUND_CALL_MS: 'nonsense' })).toBe(10_000);
  });
});
