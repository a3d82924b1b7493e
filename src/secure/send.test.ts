import { env } from 'cloudflare:workers';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { mirrorOne, type MirrorContext } from './send';
import { importSigningKey } from './signing';

const origin = inject('loopbackOrigin');
const received = async (path: string) => ((await (await fetch(`${origin}/received?path=${encodeURIComponent(path)}`)).json()) as { count: number }).count;
const context = (extra: Partial<MirrorContext> = {}): MirrorContext => ({
  env,
  key: null,
  deadline: Date.now() + 20_000,
  maxBytes: 1_048_576,
  hops: 0,
  ...extra,
});

describe('one mirrored request', () => {
  it('a request whose turn comes after the call\u2019s budget ran out is not sent: TIMEOUT, nothing arrives', async () => {
    const path = `/echo/secure-late/${crypto.randomUUID()}`;
    const outcome = await mirrorOne(context({ deadline: Date.now() - 1 }), `${origin}${path}`, '{}');
    expect(outcome).toEqual({
      ok: false,
      httpStatus: 504,
      failure: { code: 'TIMEOUT', message: "Not sent: the call's time budget ran out before this request's turn." },
    });
    expect(await received(path)).toBe(0);
  });

  it('POSTs the body as JSON, unsigned without a key; any status is an answer', async () => {
    const outcome = await mirrorOne(context(), `${origin}/echo-status/418`, '{"data":1}');
    expect(outcome).toMatchObject({ ok: true, statusCode: 418 });
    const echoed = JSON.parse((outcome as { body: string }).body);
    expect(echoed).toMatchObject({ method: 'POST', body: '{"data":1}', headers: { 'content-type': 'application/json' } });
    expect(Object.keys(echoed.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
  });

  it('with a key: signed, and every copy of the key in the answer reads $SECURE_REQUEST_KEY', async () => {
    const key = { value: 'srk-send-test-1234', signing: await importSigningKey('srk-send-test-1234') };
    const outcome = await mirrorOne(context({ key }), `${origin}/echo`, JSON.stringify({ api_key: key.value }));
    expect(outcome.ok).toBe(true);
    const body = (outcome as { body: string }).body;
    expect(body).not.toContain(key.value);
    expect(body).toContain('$SECURE_REQUEST_KEY');
    expect(Object.keys(JSON.parse(body).headers)).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
  });

  it('an answer over the cap is REQUEST_FAILED naming the limit; an address nobody listens on is REQUEST_FAILED', async () => {
    expect(await mirrorOne(context({ maxBytes: 1000 }), `${origin}/sized/1001`, '{}')).toEqual({
      ok: false,
      httpStatus: 502,
      failure: { code: 'REQUEST_FAILED', message: 'The response is larger than 1000 bytes.' },
    });
    expect(await mirrorOne(context(), 'http://127.0.0.1:9/', '{}')).toMatchObject({ ok: false, httpStatus: 502, failure: { code: 'REQUEST_FAILED' } });
  });
});
