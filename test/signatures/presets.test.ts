/**
 * Every signature preset of schemas/signature-presets.ts verifies a delivery signed the way its
 * provider documents (with the provider's own library where one is on npm) and refuses a tampered
 * body; and each registers as a ticket condition unchanged.
 */
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { normalizeSignature } from '../../schemas/signature';
import { presetSignature, SIGNATURE_PRESETS } from '../../schemas/signature-presets';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, NOW_SECONDS, signedRequest } from './helpers';

const BODY = JSON.stringify({ id: 'evt_42', type: 'order.paid', amount: 1200, note: 'größe ✓' });
const hmac = (algorithm: string, secret: string, text: string, encoding: 'hex' | 'base64') => createHmac(algorithm, secret).update(text).digest(encoding);

/** Per provider: its secret, and the headers of a delivery of `body` signed as its documentation says. */
const deliveries: Record<string, { secret: string; headers(body: string): Promise<Record<string, string>> }> = {
  stripe: {
    secret: 'whsec_preset_test_secret',
    headers: async (body) => ({
      'Stripe-Signature': await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret: 'whsec_preset_test_secret', timestamp: NOW_SECONDS, cryptoProvider: Stripe.createSubtleCryptoProvider() }),
    }),
  },
  github: { secret: 'gh-secret', headers: async (body) => ({ 'X-Hub-Signature-256': await githubSign('gh-secret', body) }) },
  slack: {
    secret: 'slack-signing-secret',
    headers: async (body) => ({ 'X-Slack-Request-Timestamp': String(NOW_SECONDS), 'X-Slack-Signature': `v0=${hmac('sha256', 'slack-signing-secret', `v0:${NOW_SECONDS}:${body}`, 'hex')}` }),
  },
  shopify: { secret: 'shpss_client_secret', headers: async (body) => ({ 'X-Shopify-Hmac-Sha256': hmac('sha256', 'shpss_client_secret', body, 'base64') }) },
  'standard-webhooks': {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    headers: async (body) => {
      const signature = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').sign('msg_preset', new Date(NOW_MS), body);
      return { 'webhook-id': 'msg_preset', 'webhook-timestamp': String(NOW_SECONDS), 'webhook-signature': signature };
    },
  },
  paddle: {
    secret: 'pdl_ntfset_01example_secret',
    headers: async (body) => ({ 'Paddle-Signature': `ts=${NOW_SECONDS};h1=${hmac('sha256', 'pdl_ntfset_01example_secret', `${NOW_SECONDS}:${body}`, 'hex')}` }),
  },
  linear: { secret: 'lin_wh_secret', headers: async (body) => ({ 'Linear-Signature': hmac('sha256', 'lin_wh_secret', body, 'hex') }) },
  intercom: { secret: 'intercom-client-secret', headers: async (body) => ({ 'X-Hub-Signature': `sha1=${hmac('sha1', 'intercom-client-secret', body, 'hex')}` }) },
};

describe('signature presets', () => {
  it('every preset has a delivery test, and ids are unique', () => {
    const ids = SIGNATURE_PRESETS.map((preset) => preset.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(Object.keys(deliveries).sort());
  });

  it.each(SIGNATURE_PRESETS.map((preset) => [preset.id] as const))('%s: a delivery signed as its provider documents verifies; a tampered body does not', async (id) => {
    const config = presetSignature(id, 'provider_secret')!;
    const { secret, headers } = deliveries[id];
    const signed = await headers(BODY);
    expect(await verifySignature(config, signedRequest(BODY, signed), secret, NOW_MS)).toBe(true);
    expect(await verifySignature(config, signedRequest(BODY.replace('1200', '1'), signed), secret, NOW_MS)).toBe(false);
    expect(await verifySignature(config, signedRequest(BODY, signed), `${secret}x`, NOW_MS)).toBe(false);
  });

  it.each(SIGNATURE_PRESETS.map((preset) => [preset.id] as const))('%s: registers as a ticket condition unchanged (its stored form)', (id) => {
    const config = presetSignature(id, 'provider_secret')!;
    expect(normalizeSignature(config, 'condition.signature', [])).toEqual(config);
  });

  it('an unknown preset id gives nothing', () => {
    expect(presetSignature('twilio', 'x')).toBeUndefined();
  });
});
