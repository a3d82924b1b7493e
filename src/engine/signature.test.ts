import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature, type SignedRequest, type SigningKeys } from './signature';

// Expected signatures are made with node:crypto, independently of the crypto.subtle code under test.
const SECRET = 'top-secret';
const NOW_SECONDS = 1_760_000_000;
const NOW_MS = NOW_SECONDS * 1000;
const BODY = '{"event":"paid","amount":42}';

function config(overrides: Partial<SignatureConfig> = {}): SignatureConfig {
  return {
    secretName: 'hook',
    header: 'x-signature',
    algorithm: 'sha256',
    encoding: 'hex',
    parts: ['${signature}'],
    signed: '${body}',
    tolerance: 300,
    secret_encoding: 'raw',
    ...overrides,
  };
}

function request(body: string | Uint8Array, headers: Record<string, string>, method = 'POST'): SignedRequest {
  return { rawBody: typeof body === 'string' ? new TextEncoder().encode(body) : body, method, headers };
}

function hmac(data: string | Uint8Array, { key = SECRET as string | Buffer, algorithm = 'sha256', encoding = 'hex' as 'hex' | 'base64' } = {}): string {
  return createHmac(algorithm, key).update(data).digest(encoding);
}

describe('signature: algorithm and encoding', () => {
  it('passes an HMAC-SHA256 hex signature of the raw body with the defaults', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY) });
    expect(await verifySignature(config(), req, SECRET, NOW_MS)).toBe(true);
  });

  it.each(['sha1', 'sha512'] as const)('passes a signature made with algorithm %s', async (algorithm) => {
    const req = request(BODY, { 'x-signature': hmac(BODY, { algorithm }) });
    expect(await verifySignature(config({ algorithm }), req, SECRET, NOW_MS)).toBe(true);
  });

  it('fails a signature made with another algorithm than the configured one', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY, { algorithm: 'sha256' }) });
    expect(await verifySignature(config({ algorithm: 'sha512' }), req, SECRET, NOW_MS)).toBe(false);
    expect(await verifySignature(config({ algorithm: 'sha1' }), req, SECRET, NOW_MS)).toBe(false);
  });

  it('passes a base64 signature when encoding is base64', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY, { encoding: 'base64' }) });
    expect(await verifySignature(config({ encoding: 'base64' }), req, SECRET, NOW_MS)).toBe(true);
  });

  it('compares hex case-insensitively', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY).toUpperCase() });
    expect(await verifySignature(config(), req, SECRET, NOW_MS)).toBe(true);
  });

  it('fails a signature written in the other encoding', async () => {
    const hexReq = request(BODY, { 'x-signature': hmac(BODY, { encoding: 'hex' }) });
    const base64Req = request(BODY, { 'x-signature': hmac(BODY, { encoding: 'base64' }) });
    expect(await verifySignature(config({ encoding: 'base64' }), hexReq, SECRET, NOW_MS)).toBe(false);
    expect(await verifySignature(config({ encoding: 'hex' }), base64Req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails a signature of the wrong length or with undecodable characters', async () => {
    const good = hmac(BODY);
    for (const bad of [good.slice(0, -2), good + 'ab', good.slice(0, -1), good.slice(0, -1) + 'g', '', 'not-hex']) {
      expect(await verifySignature(config(), request(BODY, { 'x-signature': bad }), SECRET, NOW_MS)).toBe(false);
    }
    const goodBase64 = hmac(BODY, { encoding: 'base64' });
    for (const bad of [goodBase64.slice(0, -4), goodBase64 + 'AAAA', goodBase64.replace('=', '==='), '%%%%']) {
      const req = request(BODY, { 'x-signature': bad });
      expect(await verifySignature(config({ encoding: 'base64' }), req, SECRET, NOW_MS)).toBe(false);
    }
  });

  it('fails a tampered body', async () => {
    const req = request(BODY.replace('42', '43'), { 'x-signature': hmac(BODY) });
    expect(await verifySignature(config(), req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails with the wrong secret', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY) });
    expect(await verifySignature(config(), req, 'other-secret', NOW_MS)).toBe(false);
  });

  it('verifies a body that is not valid UTF-8 over its exact bytes', async () => {
    const body = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x41]);
    const req = request(body, { 'x-signature': hmac(body) });
    expect(await verifySignature(config(), req, SECRET, NOW_MS)).toBe(true);
    const lossy = new TextEncoder().encode(new TextDecoder().decode(body));
    expect(await verifySignature(config(), request(lossy, req.headers), SECRET, NOW_MS)).toBe(false);
  });
});

describe('signature: header, separator and parts', () => {
  it('fails when the signature header is missing', async () => {
    expect(await verifySignature(config(), request(BODY, {}), SECRET, NOW_MS)).toBe(false);
  });

  it('reads the header name case-insensitively', async () => {
    const sig = hmac(BODY);
    expect(await verifySignature(config({ header: 'X-Signature' }), request(BODY, { 'x-signature': sig }), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(config(), request(BODY, { 'X-SIGNATURE': sig }), SECRET, NOW_MS)).toBe(true);
  });

  it('strips a literal prefix around the signature capture', async () => {
    const cfg = config({ parts: ['sha256=${signature}'] });
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': `sha256=${hmac(BODY)}` }), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': hmac(BODY) }), SECRET, NOW_MS)).toBe(false);
  });

  it('matches a part with text both before and after the capture', async () => {
    const cfg = config({ parts: ['sig(${signature})'] });
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': `sig(${hmac(BODY)})` }), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': `sig(${hmac(BODY)}` }), SECRET, NOW_MS)).toBe(false);
  });

  it('splits on the separator and trims every item', async () => {
    const cfg = config({ separator: ',', parts: ['t=${timestamp}', 'v1=${signature}'], signed: '${timestamp}.${body}' });
    const header = `t=${NOW_SECONDS} ,  v1=${hmac(`${NOW_SECONDS}.${BODY}`)} `;
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': header }), SECRET, NOW_MS)).toBe(true);
  });

  it('without a separator treats the whole value as one item', async () => {
    const cfg = config({ parts: ['v1=${signature}'] });
    const header = `v1=${hmac(BODY)},v1=${hmac(BODY)}`;
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': header }), SECRET, NOW_MS)).toBe(false);
    expect(await verifySignature({ ...cfg, separator: ',' }, request(BODY, { 'x-signature': header }), SECRET, NOW_MS)).toBe(true);
  });

  it('passes when any one of several signature items matches', async () => {
    const cfg = config({ separator: ' ', parts: ['v1,${signature}'], encoding: 'base64' });
    const valid = hmac(BODY, { encoding: 'base64' });
    const wrong = hmac(BODY, { key: 'old-secret', encoding: 'base64' });
    const header = `v1,${wrong} v1,not*base64 v2,${valid} v1,${valid}`;
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': header }), SECRET, NOW_MS)).toBe(true);
    const none = `v1,${wrong} v2,${valid}`;
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': none }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails when no item matches a part that captures the signature', async () => {
    const cfg = config({ separator: ',', parts: ['v1=${signature}'] });
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': `v0=${hmac(BODY)}` }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails, without throwing, on a part with two captures', async () => {
    const cfg = config({ parts: ['${a}.${signature}'] });
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': `x.${hmac(BODY)}` }), SECRET, NOW_MS)).toBe(false);
  });
});

describe('signature: signed template', () => {
  const cfg = config({
    separator: ',',
    parts: ['t=${ts}', 'v1=${signature}'],
    signed: '${method}\n${header:X-Delivery-Id}\n${ts}\n${body}',
  });
  const signedText = `POST\ndel-7\n${NOW_SECONDS}\n${BODY}`;
  const headers = { 'x-delivery-id': 'del-7', 'x-signature': `t=${NOW_SECONDS},v1=${hmac(signedText)}` };

  it('signs ${method}, ${header:Name}, a capture of parts and ${body}', async () => {
    expect(await verifySignature(cfg, request(BODY, headers), SECRET, NOW_MS)).toBe(true);
  });

  it('fails when the method differs from the signed one', async () => {
    expect(await verifySignature(cfg, request(BODY, headers, 'PUT'), SECRET, NOW_MS)).toBe(false);
  });

  it('fails when a signed header differs', async () => {
    expect(await verifySignature(cfg, request(BODY, { ...headers, 'x-delivery-id': 'del-8' }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails when a signed header is missing', async () => {
    const { 'x-delivery-id': _dropped, ...rest } = headers;
    expect(await verifySignature(cfg, request(BODY, rest), SECRET, NOW_MS)).toBe(false);
  });

  it('fails when a capture the template uses is missing from the header', async () => {
    const noTs = { ...headers, 'x-signature': `v1=${hmac(signedText)}` };
    expect(await verifySignature(cfg, request(BODY, noTs), SECRET, NOW_MS)).toBe(false);
  });

  it('fails when a captured value differs from the signed one', async () => {
    const otherTs = { ...headers, 'x-signature': `t=${NOW_SECONDS + 1},v1=${hmac(signedText)}` };
    expect(await verifySignature(cfg, request(BODY, otherTs), SECRET, NOW_MS)).toBe(false);
  });

  it('keeps literal text of the template and signs a body placed mid-template', async () => {
    const mid = config({ signed: 'pre:${body}:post' });
    expect(await verifySignature(mid, request(BODY, { 'x-signature': hmac(`pre:${BODY}:post`) }), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(mid, request(BODY, { 'x-signature': hmac(BODY) }), SECRET, NOW_MS)).toBe(false);
  });
});

describe('signature: timestamp and tolerance', () => {
  const cfg = config({ timestamp: '${header:X-Timestamp}' });
  const at = (ts: string, c = cfg) => verifySignature(c, request(BODY, { 'x-signature': hmac(BODY), 'x-timestamp': ts }), SECRET, NOW_MS);

  it('passes a timestamp in seconds within the tolerance, either side of now', async () => {
    expect(await at(String(NOW_SECONDS))).toBe(true);
    expect(await at(String(NOW_SECONDS - 300))).toBe(true);
    expect(await at(String(NOW_SECONDS + 300))).toBe(true);
  });

  it('fails a stale or future timestamp beyond the tolerance', async () => {
    expect(await at(String(NOW_SECONDS - 301))).toBe(false);
    expect(await at(String(NOW_SECONDS + 301))).toBe(false);
  });

  it('reads a timestamp above 10^12 as milliseconds', async () => {
    expect(await at(String(NOW_MS - 299_000))).toBe(true);
    expect(await at(String(NOW_MS - 301_000))).toBe(false);
  });

  it('uses the configured tolerance in seconds', async () => {
    const strict = { ...cfg, tolerance: 10 };
    expect(await at(String(NOW_SECONDS - 10), strict)).toBe(true);
    expect(await at(String(NOW_SECONDS - 11), strict)).toBe(false);
  });

  it('fails an unparsable or missing timestamp', async () => {
    for (const bad of ['', 'abc', '12abc', '-5', '1e9', `${NOW_SECONDS}s`]) expect(await at(bad)).toBe(false);
    expect(await verifySignature(cfg, request(BODY, { 'x-signature': hmac(BODY) }), SECRET, NOW_MS)).toBe(false);
  });

  it('resolves a timestamp template from a capture of parts', async () => {
    const fromParts = config({ separator: ',', parts: ['t=${timestamp}', 'v1=${signature}'], timestamp: '${timestamp}' });
    const header = (ts: number) => `t=${ts},v1=${hmac(BODY)}`;
    expect(await verifySignature(fromParts, request(BODY, { 'x-signature': header(NOW_SECONDS) }), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(fromParts, request(BODY, { 'x-signature': header(NOW_SECONDS - 3600) }), SECRET, NOW_MS)).toBe(false);
  });

  it('does not check the time when timestamp is absent', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY), 'x-timestamp': '1' });
    expect(await verifySignature(config(), req, SECRET, NOW_MS)).toBe(true);
  });
});

describe('signature: secret_encoding and secret_prefix', () => {
  const keyBytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x20, 0xc3, 0x28]);
  const signedWithKey = () => request(BODY, { 'x-signature': hmac(BODY, { key: keyBytes }) });

  it('decodes a base64 stored secret into the key bytes', async () => {
    const cfg = config({ secret_encoding: 'base64' });
    expect(await verifySignature(cfg, signedWithKey(), keyBytes.toString('base64'), NOW_MS)).toBe(true);
    expect(await verifySignature(cfg, signedWithKey(), keyBytes.toString('base64url'), NOW_MS)).toBe(true);
  });

  it('decodes a hex stored secret into the key bytes, either case', async () => {
    const cfg = config({ secret_encoding: 'hex' });
    expect(await verifySignature(cfg, signedWithKey(), keyBytes.toString('hex'), NOW_MS)).toBe(true);
    expect(await verifySignature(cfg, signedWithKey(), keyBytes.toString('hex').toUpperCase(), NOW_MS)).toBe(true);
  });

  it('uses the UTF-8 bytes of a raw secret as they are', async () => {
    const raw = config({ secret_encoding: 'raw' });
    const req = request(BODY, { 'x-signature': hmac(BODY, { key: 'c2VjcmV0' }) });
    expect(await verifySignature(raw, req, 'c2VjcmV0', NOW_MS)).toBe(true);
    expect(await verifySignature(config({ secret_encoding: 'base64' }), req, 'c2VjcmV0', NOW_MS)).toBe(false);
  });

  it('removes secret_prefix before decoding, and decodes the whole secret when it is absent', async () => {
    const cfg = config({ secret_encoding: 'base64', secret_prefix: 'whsec_' });
    const encoded = keyBytes.toString('base64');
    expect(await verifySignature(cfg, signedWithKey(), `whsec_${encoded}`, NOW_MS)).toBe(true);
    expect(await verifySignature(cfg, signedWithKey(), encoded, NOW_MS)).toBe(true);
  });

  it('keeps the prefix as key material when no secret_prefix is configured', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY, { key: 'whsec_abc' }) });
    expect(await verifySignature(config(), req, 'whsec_abc', NOW_MS)).toBe(true);
    expect(await verifySignature(config({ secret_prefix: 'whsec_' }), req, 'whsec_abc', NOW_MS)).toBe(false);
  });

  it('fails, without throwing, on an undecodable or empty secret', async () => {
    expect(await verifySignature(config({ secret_encoding: 'hex' }), signedWithKey(), 'xyz', NOW_MS)).toBe(false);
    expect(await verifySignature(config({ secret_encoding: 'hex' }), signedWithKey(), 'abc', NOW_MS)).toBe(false);
    expect(await verifySignature(config({ secret_encoding: 'base64' }), signedWithKey(), '***', NOW_MS)).toBe(false);
    const emptyKeyReq = request(BODY, { 'x-signature': hmac(BODY, { key: '' }) });
    expect(await verifySignature(config(), emptyKeyReq, '', NOW_MS)).toBe(false);
  });

  it('keys imported once per secret are reused only for the same hash and way of reading the secret', async () => {
    const keys: SigningKeys = new Map();
    const sha256 = request(BODY, { 'x-signature': hmac(BODY, { key: 'c2VjcmV0' }) });
    const sha512 = request(BODY, { 'x-signature': hmac(BODY, { key: 'c2VjcmV0', algorithm: 'sha512' }) });
    const decoded = request(BODY, { 'x-signature': hmac(BODY, { key: Buffer.from('secret') }) });
    for (let round = 0; round < 2; round++) {
      expect(await verifySignature(config(), sha256, 'c2VjcmV0', NOW_MS, keys)).toBe(true);
      expect(await verifySignature(config({ algorithm: 'sha512' }), sha512, 'c2VjcmV0', NOW_MS, keys)).toBe(true);
      expect(await verifySignature(config({ secret_encoding: 'base64' }), decoded, 'c2VjcmV0', NOW_MS, keys)).toBe(true);
      expect(await verifySignature(config({ secret_encoding: 'base64' }), sha256, 'c2VjcmV0', NOW_MS, keys)).toBe(false);
    }
    expect(keys.size).toBe(3);
  });

  it('fails, without throwing, on an unknown algorithm or encoding', async () => {
    const req = request(BODY, { 'x-signature': hmac(BODY) });
    const bogus = { ...config(), algorithm: 'md5' } as unknown as SignatureConfig;
    expect(await verifySignature(bogus, req, SECRET, NOW_MS)).toBe(false);
    const bogusEncoding = { ...config(), encoding: 'base32' } as unknown as SignatureConfig;
    expect(await verifySignature(bogusEncoding, req, SECRET, NOW_MS)).toBe(false);
  });
});

describe('signature: parts and templates parsed once per config', () => {
  it('one config verifies each request by its own values, and a config with other parts or template is parsed anew', async () => {
    const stripeLike = config({
      header: 'sig',
      separator: ',',
      parts: ['t=${timestamp}', 'v1=${signature}'],
      signed: '${timestamp}.${body}',
      timestamp: '${timestamp}',
    });
    const signedAt = (t: number, body: string) => request(body, { sig: `t=${t},v1=${hmac(`${t}.${body}`)}` });
    for (const [t, body] of [
      [NOW_SECONDS, BODY],
      [NOW_SECONDS - 10, '{"other":1}'],
      [NOW_SECONDS + 5, ''],
    ] as const) {
      expect(await verifySignature(stripeLike, signedAt(t, body), SECRET, NOW_MS)).toBe(true);
    }
    // The same values in another order of parts and another template: not the first config's parse.
    const reordered = config({
      header: 'sig',
      separator: ';',
      parts: ['s=${signature}', 'ts=${timestamp}'],
      signed: '${body}|${timestamp}',
      timestamp: '${timestamp}',
    });
    const body = '{"n":2}';
    const good = request(body, { sig: `s=${hmac(`${body}|${NOW_SECONDS}`)};ts=${NOW_SECONDS}` });
    expect(await verifySignature(reordered, good, SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(stripeLike, good, SECRET, NOW_MS)).toBe(false);
    expect(await verifySignature(reordered, signedAt(NOW_SECONDS, body), SECRET, NOW_MS)).toBe(false);
    // A part that does not parse keeps failing when the same config comes again.
    const broken = config({ parts: ['${signature'] });
    const req = request(BODY, { 'x-signature': hmac(BODY) });
    expect(await verifySignature(broken, req, SECRET, NOW_MS)).toBe(false);
    expect(await verifySignature(broken, req, SECRET, NOW_MS)).toBe(false);
  });
});
