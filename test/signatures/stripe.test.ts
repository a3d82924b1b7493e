import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, NOW_SECONDS, signedRequest } from './helpers';

// Stripe signs `${t}.${body}` with HMAC-SHA256, keyed by the UTF-8 bytes of the whole 'whsec_...' secret.
const STRIPE: SignatureConfig = {
  secretName: 'stripe_webhook_secret',
  header: 'Stripe-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  separator: ',',
  parts: ['t=${timestamp}', 'v1=${signature}'],
  signed: '${timestamp}.${body}',
  timestamp: '${timestamp}',
  tolerance: 300,
  secret_encoding: 'raw',
};

const SECRET = 'whsec_test_2f9c8e1b7a6d4c3b';
const PAYLOAD = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded' });
const cryptoProvider = Stripe.createSubtleCryptoProvider();

function stripeHeader(payload: string, secret: string, timestamp = NOW_SECONDS): Promise<string> {
  return Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp, cryptoProvider });
}

describe('Stripe signatures made by the stripe library', () => {
  it('passes a valid Stripe-Signature header', async () => {
    const header = await stripeHeader(PAYLOAD, SECRET);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': header }), SECRET, NOW_MS)).toBe(true);
  });

  it('fails a tampered body', async () => {
    const header = await stripeHeader(PAYLOAD, SECRET);
    const tampered = PAYLOAD.replace('succeeded', 'failed');
    expect(await verifySignature(STRIPE, signedRequest(tampered, { 'Stripe-Signature': header }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails a timestamp older than the tolerance', async () => {
    const fresh = await stripeHeader(PAYLOAD, SECRET, NOW_SECONDS - 299);
    const stale = await stripeHeader(PAYLOAD, SECRET, NOW_SECONDS - 301);
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': fresh }), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': stale }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails a replay whose t= was moved to now', async () => {
    const stale = await stripeHeader(PAYLOAD, SECRET, NOW_SECONDS - 3600);
    const moved = stale.replace(/^t=\d+/, `t=${NOW_SECONDS}`);
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': moved }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails with the wrong secret', async () => {
    const header = await stripeHeader(PAYLOAD, 'whsec_someone_else');
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': header }), SECRET, NOW_MS)).toBe(false);
  });

  it('passes when one of several v1 signatures matches (secret roll), ignoring v0', async () => {
    const oldHeader = await stripeHeader(PAYLOAD, 'whsec_rolled_out');
    const newHeader = await stripeHeader(PAYLOAD, SECRET);
    const v1 = (h: string) => h.split(',')[1];
    const header = `t=${NOW_SECONDS},${v1(oldHeader)},${v1(newHeader)},v0=${'0'.repeat(64)}`;
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': header }), SECRET, NOW_MS)).toBe(true);
    const onlyOld = `t=${NOW_SECONDS},${v1(oldHeader)}`;
    expect(await verifySignature(STRIPE, signedRequest(PAYLOAD, { 'Stripe-Signature': onlyOld }), SECRET, NOW_MS)).toBe(false);
  });
});
