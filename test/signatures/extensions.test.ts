/**
 * The signature extensions (docs/signature-extensions.md): the URL, query, body-field and form tokens,
 * public_url, a signature in a body field, body_sha256, and public-key algorithms; each bad input a
 * clear refusal at registration or a failed check, never a throw.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { normalizeSignature, type SignatureInput } from '../../schemas/signature';
import { EXTENSION_PRESETS } from '../../schemas/signature-presets-extensions';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature, type SignedRequest } from '../../src/engine/signature';
import { importPublicKey } from '../../src/engine/public-key';
import { NOW_MS } from './helpers';

const deliveries = inject('extensionDeliveries');
const preset = (id: string): SignatureConfig => ({ secretName: 'k', ...EXTENSION_PRESETS.find((p) => p.id === id)!.signature! });
const bytes = (text: string) => new TextEncoder().encode(text);
const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

function refusal(input: Record<string, unknown>): { field?: string; message: string } | undefined {
  try {
    normalizeSignature(input as SignatureInput, 'condition.signature', []);
    return undefined;
  } catch (error) {
    const err = error as { message: string; issue?: { field?: string } };
    return { field: err.issue?.field, message: err.message };
  }
}

describe('${url}: the URL the provider called', () => {
  const square = deliveries.square;
  const request = (url: string | undefined): SignedRequest => ({ rawBody: bytes(square.body), method: 'POST', headers: lower(square.headers), url });

  it('is the URL as received: scheme, host, path and query', async () => {
    expect(await verifySignature(preset('square'), request(square.url), square.secret, NOW_MS)).toBe(true);
    expect(await verifySignature(preset('square'), request(`${square.url}?x=1`), square.secret, NOW_MS)).toBe(false);
    expect(await verifySignature(preset('square'), request(square.url.replace('https:', 'http:')), square.secret, NOW_MS)).toBe(false);
  });

  it('a ticket reached through an unexpected host fails cleanly (false, no throw)', async () => {
    expect(await verifySignature(preset('square'), request('https://svc.workers.dev/tp/svc1/square'), square.secret, NOW_MS)).toBe(false);
  });

  it('public_url replaces scheme, host and path (behind a proxy or a custom domain); the query stays the one received', async () => {
    const config = { ...preset('square'), public_url: square.url };
    expect(await verifySignature(config, request('http://internal:8787/tp/svc1/square'), square.secret, NOW_MS)).toBe(true);
    const hubspot = deliveries['hubspot-v3'];
    const [path, query] = hubspot.url.split('?');
    const proxied: SignedRequest = {
      rawBody: bytes(hubspot.body),
      method: 'POST',
      headers: lower(hubspot.headers),
      url: `https://svc.workers.dev/tp/svc1/hubspot?${query}`,
    };
    expect(await verifySignature({ ...preset('hubspot-v3'), public_url: path }, proxied, hubspot.secret, NOW_MS)).toBe(true);
    expect(await verifySignature(preset('hubspot-v3'), proxied, hubspot.secret, NOW_MS)).toBe(false);
  });

  it('a request without a known URL (e.g. a log row kept before URLs were) fails the check', async () => {
    expect(await verifySignature(preset('square'), request(undefined), square.secret, NOW_MS)).toBe(false);
  });
});

describe('${field:path} and field: values and signatures in the body', () => {
  const key = 'mg-key';
  const mailgun = (body: unknown) => ({ rawBody: bytes(JSON.stringify(body)), method: 'POST', headers: { 'content-type': 'application/json' } });
  const signed = (timestamp: string, token: string) =>
    createHmac('sha256', key)
      .update(timestamp + token)
      .digest('hex');

  it('reads nested JSON members; a missing field, an object or null has no value and fails', async () => {
    const ts = String(NOW_MS / 1000);
    expect(await verifySignature(preset('mailgun'), mailgun({ signature: { timestamp: ts, token: 't', signature: signed(ts, 't') } }), key, NOW_MS)).toBe(true);
    expect(await verifySignature(preset('mailgun'), mailgun({ signature: { timestamp: ts, signature: signed(ts, 't') } }), key, NOW_MS)).toBe(false);
    expect(await verifySignature(preset('mailgun'), mailgun({ signature: { timestamp: ts, token: null, signature: signed(ts, 'null') } }), key, NOW_MS)).toBe(
      false,
    );
    expect(await verifySignature(preset('mailgun'), mailgun({ other: 1 }), key, NOW_MS)).toBe(false);
    expect(await verifySignature(preset('mailgun'), { rawBody: bytes('not json'), method: 'POST', headers: {} }, key, NOW_MS)).toBe(false);
  });

  it("Linear's webhookTimestamp (a JSON number, ms) drives the freshness check", async () => {
    const body = JSON.stringify({ action: 'create', webhookTimestamp: NOW_MS - 120_000 });
    const request = { rawBody: bytes(body), method: 'POST', headers: { 'linear-signature': createHmac('sha256', 's').update(body).digest('hex') } };
    expect(await verifySignature(preset('linear-with-timestamp'), request, 's', NOW_MS)).toBe(false);
    expect(await verifySignature(preset('linear-with-timestamp'), request, 's', NOW_MS - 120_000)).toBe(true);
  });
});

describe('public-key signatures: the Secret Key holds the public key', () => {
  it('Ed25519 keys import from 64 hex characters and from SPKI; ECDSA from base64 SPKI and PEM', async () => {
    const discordHex = deliveries.discord.secret;
    expect(await importPublicKey('ed25519', discordHex)).toBeDefined();
    expect(await importPublicKey('ed25519', discordHex.toUpperCase())).toBeDefined();
    const spki = deliveries.sendgrid.secret;
    expect(await importPublicKey('ecdsa-p256-sha256', spki)).toBeDefined();
    expect(await importPublicKey('ecdsa-p256-sha256', `-----BEGIN PUBLIC KEY-----\n${spki}\n-----END PUBLIC KEY-----\n`)).toBeDefined();
  });

  it('a key in the wrong format, of another algorithm or of another curve does not import, and the check fails without a throw', async () => {
    const p384 = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const p384Spki = btoa(String.fromCharCode(...new Uint8Array((await crypto.subtle.exportKey('spki', p384.publicKey)) as ArrayBuffer)));
    expect(await importPublicKey('ecdsa-p256-sha256', p384Spki)).toBeUndefined();
    expect(await importPublicKey('ed25519', deliveries.sendgrid.secret)).toBeUndefined();
    expect(await importPublicKey('ed25519', 'abc')).toBeUndefined();
    expect(await importPublicKey('rsa-sha256', deliveries.discord.secret)).toBeUndefined();
    expect(await importPublicKey('rsa-sha256', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----')).toBeUndefined();
    const sendgrid = deliveries.sendgrid;
    const request = { rawBody: bytes(sendgrid.body), method: 'POST', headers: lower(sendgrid.headers) };
    expect(await verifySignature(preset('sendgrid'), request, p384Spki, NOW_MS)).toBe(false);
    expect(await verifySignature(preset('sendgrid'), request, 'not a key', NOW_MS)).toBe(false);
  });

  it('a signature that is not DER or r‖s, or of the wrong length, fails', async () => {
    const sendgrid = deliveries.sendgrid;
    const headers = { ...lower(sendgrid.headers), 'x-twilio-email-event-webhook-signature': btoa('\x30\x06\x02\x01\x01\x02\x01') };
    expect(await verifySignature(preset('sendgrid'), { rawBody: bytes(sendgrid.body), method: 'POST', headers }, sendgrid.secret, NOW_MS)).toBe(false);
    const discord = deliveries.discord;
    const short = { ...lower(discord.headers), 'x-signature-ed25519': 'ab'.repeat(10) };
    expect(await verifySignature(preset('discord'), { rawBody: bytes(discord.body), method: 'POST', headers: short }, discord.secret, NOW_MS)).toBe(false);
  });
});

describe('registration of the extensions; the spec-defined refusals stay', () => {
  const base = { secretName: 'k', header: 'X-Sig' };

  it('the extension tokens register; an unknown token is still refused at signed', () => {
    expect(refusal({ ...base, signed: '${method}${url}${query:a}${field:a.b}${form:sorted}${body}' })).toBeUndefined();
    expect(refusal({ ...base, signed: '${path}' })).toMatchObject({ field: 'condition.signature.signed' });
    expect(refusal({ ...base, signed: '${field:}' })).toMatchObject({ field: 'condition.signature.signed' });
  });

  it('header stays required unless field (extension) reads the signature from the body; not both', () => {
    expect(refusal({ secretName: 'k' })).toMatchObject({ field: 'condition.signature.header', message: expect.stringContaining('required') });
    expect(refusal({ secretName: 'k', field: 'signature.signature' })).toBeUndefined();
    expect(refusal({ ...base, field: 'sig' })).toMatchObject({ field: 'condition.signature.field' });
  });

  it('public_url must be an absolute http(s) URL without query, fragment or credentials', () => {
    expect(refusal({ ...base, public_url: 'https://hooks.example.com/tp/s/t' })).toBeUndefined();
    for (const bad of ['hooks.example.com/x', 'ftp://h/x', 'https://h/x?a=1', 'https://h/x#f', 'https://u:p@h/x']) {
      expect(refusal({ ...base, public_url: bad })).toMatchObject({ field: 'condition.signature.public_url' });
    }
  });

  it('a public-key algorithm refuses secret_encoding and secret_prefix (the key is stored as itself)', () => {
    expect(refusal({ ...base, algorithm: 'ed25519', secret_encoding: 'hex' })).toMatchObject({ field: 'condition.signature.secret_encoding' });
    expect(refusal({ ...base, algorithm: 'ed25519', secret_prefix: 'x' })).toMatchObject({ field: 'condition.signature.secret_prefix' });
    expect(refusal({ ...base, algorithm: 'rsa-sha256' })).toBeUndefined();
  });

  it('a public-key algorithm queues a check that the Secret Key holds such a key', async () => {
    const checks: { path: string; message: string; exists: (l: any) => Promise<boolean> }[] = [];
    normalizeSignature({ ...base, algorithm: 'ed25519' } as SignatureInput, 'condition.signature', checks as never);
    expect(checks.map((c) => c.path)).toEqual(['condition.signature.secretName', 'condition.signature.secretName']);
    const lookups = (value: string) => ({
      secretExists: async () => true,
      publicKeyUsable: async (_: string, alg: 'ed25519') => (await importPublicKey(alg, value)) !== undefined,
    });
    expect(await checks[1].exists(lookups(deliveries.discord.secret))).toBe(true);
    expect(await checks[1].exists(lookups(deliveries.sendgrid.secret))).toBe(false);
    expect(checks[1].message).toContain('Ed25519 public key');
  });
});
