/**
 * Every preset of schemas/signature-presets-extensions.ts verifies a delivery signed the way its
 * provider signs (by the provider's own library where it has one: test/signatures/extension-signers.ts
 * signs or checks them in Node), and refuses a tampered body, another secret and, where the scheme
 * has a timestamp, an expired one; each registers as a ticket condition unchanged.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { normalizeSignature } from '../../schemas/signature';
import { EXTENSION_PRESETS } from '../../schemas/signature-presets-extensions';
import { SIGNATURE_PRESETS } from '../../schemas/signature-presets';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature, type SignedRequest } from '../../src/engine/signature';
import type { ProviderDelivery } from './extension-signers';
import { NOW_MS, NOW_SECONDS } from './helpers';

const JSON_BODY = JSON.stringify({ id: 'evt_42', type: 'order.paid', amount: 1200, note: 'größe ✓' });
const hex = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

/** Deliveries made in workerd: by the provider's documented scheme (no library of theirs signs), or with a key made here. */
async function localDeliveries(): Promise<Record<string, ProviderDelivery>> {
  const mailgunKey = 'key-mailgun-signing-0000';
  const token = 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0';
  const timestamp = String(NOW_SECONDS);
  const mailgunBody = JSON.stringify({
    signature: { timestamp, token, signature: hex(mailgunKey, timestamp + token) },
    'event-data': { event: 'delivered', id: 'ev-1' },
  });
  const mailgunForm = new URLSearchParams({
    timestamp,
    token,
    signature: hex(mailgunKey, timestamp + token),
    recipient: 'a@example.com',
    event: 'delivered',
  }).toString();
  const linearBody = JSON.stringify({ action: 'create', type: 'Issue', data: { id: 'iss_1' }, webhookTimestamp: NOW_MS });

  const rsa = (await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
  const spki = new Uint8Array((await crypto.subtle.exportKey('spki', rsa.publicKey)) as ArrayBuffer);
  const pem = `-----BEGIN PUBLIC KEY-----\n${btoa(String.fromCharCode(...spki)).replace(/(.{64})/g, '$1\n')}\n-----END PUBLIC KEY-----\n`;
  const rsaSignature = new Uint8Array(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', rsa.privateKey, new TextEncoder().encode(JSON_BODY)));

  const base = { url: 'https://hooks.example.com/tp/svc1/x', method: 'POST' as const, signedAtMs: NOW_MS };
  return {
    mailgun: { ...base, secret: mailgunKey, headers: { 'Content-Type': 'application/json' }, body: mailgunBody },
    'mailgun-form': { ...base, secret: mailgunKey, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: mailgunForm },
    'linear-with-timestamp': {
      ...base,
      secret: 'lin_wh_secret',
      headers: { 'Linear-Signature': hex('lin_wh_secret', linearBody), 'Content-Type': 'application/json' },
      body: linearBody,
    },
    'rsa-sha256-body': { ...base, secret: pem, headers: { 'X-Signature': btoa(String.fromCharCode(...rsaSignature)) }, body: JSON_BODY },
  };
}

const deliveries = { ...inject('extensionDeliveries'), ...(await localDeliveries()) };

export function requestOf(delivery: ProviderDelivery, body = delivery.body): SignedRequest {
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { rawBody: new TextEncoder().encode(body), method: delivery.method, headers, url: delivery.url };
}

const configOf = (id: string): SignatureConfig => ({ secretName: 'provider_key', ...EXTENSION_PRESETS.find((p) => p.id === id)!.signature! });

/**
 * A tampered copy of the body that keeps its form (one signed value changed). Mailgun signs only its
 * timestamp and token, not the event data (its documented scheme): its token is what is changed.
 */
function tamper(id: string, body: string): string {
  if (id.startsWith('mailgun')) return body.replace('a8ce0edb', 'b8ce0edb');
  for (const [from, to] of [
    ['1200', '1'],
    ['delivered', 'bounced'],
    ['"create"', '"remove"'],
    ['hello', 'hellO'],
    ['Hello', 'HELLO'],
  ])
    if (body.includes(from)) return body.replace(from, to);
  return `${body} `;
}

describe('extension presets verify deliveries signed as their providers sign', () => {
  it('every extension preset has a delivery, and each is in the one preset list once', () => {
    const ids = EXTENSION_PRESETS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.map((id) => SIGNATURE_PRESETS.filter((p) => p.id === id).length)).toEqual(ids.map(() => 1));
    expect(ids.filter((id) => !deliveries[id])).toEqual([]);
  });

  it.each(EXTENSION_PRESETS.map((p) => [p.id] as const))('%s: the delivery verifies; a tampered body and another secret do not', async (id) => {
    const delivery = deliveries[id];
    const config = configOf(id);
    expect(await verifySignature(config, requestOf(delivery), delivery.secret, delivery.signedAtMs)).toBe(true);
    const tampered = tamper(id, delivery.body);
    expect(tampered).not.toBe(delivery.body);
    expect(await verifySignature(config, requestOf(delivery, tampered), delivery.secret, delivery.signedAtMs)).toBe(false);
    const other = deliveries[id === 'discord' ? 'sendgrid' : 'discord'].secret;
    expect(await verifySignature(config, requestOf(delivery), config.algorithm.startsWith('sha') ? `${delivery.secret}x` : other, delivery.signedAtMs)).toBe(
      false,
    );
  });

  it.each(EXTENSION_PRESETS.filter((p) => p.signature?.timestamp).map((p) => [p.id] as const))(
    '%s: a delivery older than the tolerance is refused',
    async (id) => {
      const delivery = deliveries[id];
      const config = configOf(id);
      const late = delivery.signedAtMs + (config.tolerance! + 1) * 1000;
      expect(await verifySignature(config, requestOf(delivery), delivery.secret, late)).toBe(false);
    },
  );

  it.each(EXTENSION_PRESETS.map((p) => [p.id] as const))('%s: registers as a ticket condition unchanged (its stored form)', (id) => {
    expect(normalizeSignature(configOf(id), 'condition.signature', [])).toEqual(configOf(id));
  });

  it('twilio: its JSON-body variant (bodySHA256 in the URL) verifies with the same preset; a body that does not match bodySHA256 is refused', async () => {
    const delivery = deliveries['twilio-json'];
    const config = configOf('twilio');
    expect(await verifySignature(config, requestOf(delivery), delivery.secret, NOW_MS)).toBe(true);
    expect(await verifySignature(config, requestOf(delivery, delivery.body.replace('1200', '1')), delivery.secret, NOW_MS)).toBe(false);
  });

  it('twilio: a form signature cannot be moved onto a JSON body (a non-form body without bodySHA256 has no ${form:sorted})', async () => {
    const delivery = deliveries.twilio;
    const moved = { ...requestOf(delivery, JSON_BODY), headers: { ...requestOf(delivery).headers, 'content-type': 'application/json' } };
    expect(await verifySignature(configOf('twilio'), moved, delivery.secret, NOW_MS)).toBe(false);
  });
});
