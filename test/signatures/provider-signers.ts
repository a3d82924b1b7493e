/**
 * Vitest globalSetup (runs in Node, not in workerd): deliveries signed by the providers' own npm
 * libraries, handed to test/signatures/presets.test.ts with `inject('providerDeliveries')`. Several of
 * these libraries are Node-only (twilio, square's signer), so the signing happens here.
 *
 * Per provider: the library that signs, and why its bytes are the provider's.
 * - stripe, calendly: stripe's generateTestHeaderString (Calendly's header is Stripe's format:
 *   t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">, per Calendly's "Webhook signatures").
 * - github, bitbucket, jira, notion: @octokit/webhooks-methods sign(), "sha256=<hex HMAC-SHA256 of body>",
 *   the value each of them documents for its header.
 * - linear, coinbase-commerce, sentry: the same sign(), without its "sha256=" (they send the hex alone).
 * - slack, zoom, twitch, paddle: sign() over the string the provider documents as signed
 *   ("v0:<ts>:<body>", "v0:<ts>:<body>", "<id><timestamp><body>", "<ts>:<body>"); Paddle's own
 *   webhooks.isSignatureValid then confirms the Paddle header (paddleConfirmed).
 * - standard-webhooks: standardwebhooks; svix: svix (its svix-* header names).
 * - intercom, vercel: twilio's getExpectedTwilioSignature with no parameters is base64 HMAC-SHA1 of
 *   the text given: HMAC-SHA1 of the body, written in hex as both document.
 * - shopify, woocommerce, typeform: square's signer (base64 HMAC-SHA256 of URL + body, here with the
 *   body alone), confirmed by square's WebhooksHelper.verifySignature (squareConfirmed).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import { Paddle } from '@paddle/paddle-node-sdk';
import { WebhooksHelper } from 'square';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import twilio from 'twilio';
import type { TestProject } from 'vitest/node';
import { PROVIDER_BODIES, PROVIDER_SECRETS, type ProviderDeliveries } from './provider-bodies';

const require = createRequire(import.meta.url);
const squareHmac: (payload: string, key: string) => Promise<string> = require(path.join(path.dirname(require.resolve('square')), 'core/crypto/createHmacOverride.js')).createHmacOverride;

const hexOf = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const bare = async (secret: string, text: string) => (await octokitSign(secret, text)).slice('sha256='.length);

type Signer = (body: string, secret: string, ts: number) => Promise<Record<string, string>>;

const SIGNERS: Record<string, Signer> = {
  stripe: async (body, secret, ts) => ({ 'Stripe-Signature': await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, timestamp: ts }) }),
  calendly: async (body, secret, ts) => ({ 'Calendly-Webhook-Signature': await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, timestamp: ts }) }),
  github: async (body, secret) => ({ 'X-Hub-Signature-256': await octokitSign(secret, body) }),
  bitbucket: async (body, secret) => ({ 'X-Hub-Signature': await octokitSign(secret, body) }),
  jira: async (body, secret) => ({ 'X-Hub-Signature': await octokitSign(secret, body) }),
  notion: async (body, secret) => ({ 'X-Notion-Signature': await octokitSign(secret, body) }),
  linear: async (body, secret) => ({ 'Linear-Signature': await bare(secret, body) }),
  'coinbase-commerce': async (body, secret) => ({ 'X-CC-Webhook-Signature': await bare(secret, body) }),
  sentry: async (body, secret, ts) => ({ 'Sentry-Hook-Signature': await bare(secret, body), 'Sentry-Hook-Timestamp': String(ts), 'Sentry-Hook-Resource': 'issue' }),
  slack: async (body, secret, ts) => ({ 'X-Slack-Request-Timestamp': String(ts), 'X-Slack-Signature': `v0=${await bare(secret, `v0:${ts}:${body}`)}` }),
  zoom: async (body, secret, ts) => ({ 'x-zm-request-timestamp': String(ts), 'x-zm-signature': `v0=${await bare(secret, `v0:${ts}:${body}`)}` }),
  twitch: async (body, secret, ts) => {
    const id = 'befa7b53-d79d-478f-86b9-120f112b044e';
    const stamp = new Date(ts * 1000).toISOString();
    return {
      'Twitch-Eventsub-Message-Id': id,
      'Twitch-Eventsub-Message-Timestamp': stamp,
      'Twitch-Eventsub-Message-Type': 'notification',
      'Twitch-Eventsub-Message-Signature': await octokitSign(secret, `${id}${stamp}${body}`),
    };
  },
  paddle: async (body, secret, ts) => ({ 'Paddle-Signature': `ts=${ts};h1=${await bare(secret, `${ts}:${body}`)}` }),
  'standard-webhooks': async (body, secret, ts) => ({
    'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
    'webhook-timestamp': String(ts),
    'webhook-signature': new StandardWebhook(secret).sign('msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', new Date(ts * 1000), body),
  }),
  svix: async (body, secret, ts) => ({
    'svix-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'svix-timestamp': String(ts),
    'svix-signature': new SvixWebhook(secret).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(ts * 1000), body),
  }),
  intercom: async (body, secret) => ({ 'X-Hub-Signature': `sha1=${hexOf(twilio.getExpectedTwilioSignature(secret, body, {}))}` }),
  vercel: async (body, secret) => ({ 'x-vercel-signature': hexOf(twilio.getExpectedTwilioSignature(secret, body, {})) }),
  shopify: async (body, secret) => ({ 'X-Shopify-Hmac-Sha256': await squareHmac(body, secret), 'X-Shopify-Topic': 'orders/create' }),
  woocommerce: async (body, secret) => ({ 'X-WC-Webhook-Signature': await squareHmac(body, secret), 'X-WC-Webhook-Topic': 'order.created' }),
  typeform: async (body, secret) => ({ 'Typeform-Signature': `sha256=${await squareHmac(body, secret)}` }),
};

/** Square's own verifier accepts `signature` as base64 HMAC-SHA256 of `body` (URL and body split at the first character). */
async function squareAccepts(body: string, signature: string, secret: string): Promise<boolean> {
  return WebhooksHelper.verifySignature({ requestBody: body.slice(1), notificationUrl: body.slice(0, 1), signatureHeader: signature, signatureKey: secret });
}

export async function signDeliveries(fresh: number, stale: number): Promise<ProviderDeliveries> {
  const deliveries: ProviderDeliveries['deliveries'] = {};
  for (const [id, signer] of Object.entries(SIGNERS)) {
    const body = PROVIDER_BODIES[id];
    const secret = PROVIDER_SECRETS[id];
    deliveries[id] = { fresh: await signer(body, secret, fresh), stale: await signer(body, secret, stale) };
  }
  const squareConfirmed: Record<string, boolean> = {};
  for (const [id, header, prefix] of [['shopify', 'X-Shopify-Hmac-Sha256', ''], ['woocommerce', 'X-WC-Webhook-Signature', ''], ['typeform', 'Typeform-Signature', 'sha256=']] as const) {
    squareConfirmed[id] = await squareAccepts(PROVIDER_BODIES[id], deliveries[id].fresh[header].slice(prefix.length), PROVIDER_SECRETS[id]);
  }
  // Paddle's validator checks against the real clock, so this header is signed now.
  const now = Math.floor(Date.now() / 1000);
  const paddleNow = (await SIGNERS.paddle(PROVIDER_BODIES.paddle, PROVIDER_SECRETS.paddle, now))['Paddle-Signature'];
  const paddleConfirmed = await new Paddle('pdl_sdbx_apikey_test_presets').webhooks.isSignatureValid(PROVIDER_BODIES.paddle, PROVIDER_SECRETS.paddle, paddleNow);
  return { deliveries, squareConfirmed, paddle: { header: paddleNow, nowMs: now * 1000, confirmed: paddleConfirmed } };
}

export default async function setup(project: TestProject): Promise<void> {
  const { NOW_SECONDS } = await import('./helpers');
  project.provide('providerDeliveries', await signDeliveries(NOW_SECONDS, NOW_SECONDS - 3600));
}
