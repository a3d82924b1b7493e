/**
 * Vitest globalSetup (runs in Node, not in workerd): deliveries signed, and checked, by the providers'
 * own npm libraries, handed to test/signatures/presets.test.ts with `inject('providerDeliveries')`.
 * Several of these libraries are Node-only, so the signing and checking happen here.
 *
 * Per provider, what makes the delivery that provider's (issue 27 item 1):
 * - Checked by the provider's own library (`providerLibraries`: its verifier accepts the delivery
 *   and refuses it with a changed body):
 *   stripe (stripe's generateTestHeaderString signs), github (@octokit/webhooks-methods signs),
 *   standard-webhooks (standardwebhooks signs), svix (svix signs), paddle (Paddle's
 *   webhooks.isSignatureValid, at the real clock), notion (@notionhq/client signWebhookPayload signs,
 *   verifyWebhookSignature checks), slack (@slack/bolt verifySlackRequest), shopify
 *   (@shopify/shopify-api webhooks.validate, with Shopify's required headers), zoom (@zoom/rivet's
 *   receiver; it verifies JSON.stringify of the parsed body, which is the body as sent for a compact
 *   JSON delivery), twitch (@twurple/eventsub-http's verifier, _verifyData on its prototype: an
 *   internal method, the one its listener runs on every delivery), coinbase-commerce
 *   (coinbase-commerce-node Webhook.verifySigHeader), linear (@linear/sdk LinearWebhookClient.verify,
 *   which also checks webhookTimestamp against the real clock, so its delivery is made now: `linear`).
 *   Slack, GitHub and Svix / Standard Webhooks also have their documented vectors in presets.test.ts.
 * - WooCommerce has no npm library that checks a delivery, but its own repository publishes a test
 *   vector (WC_Webhook::generate_signature's unit test), consumed at a ticket registered from the
 *   preset in published-vectors.test.ts; its delivery here is still square's same-formula signer.
 * - Neither an npm library of the provider's nor a published test vector was found (searched: npm,
 *   each provider's documentation, which gives the formula and sample code but no secret, payload and
 *   signature to check against, and the provider's own repositories where public: getsentry/sentry and
 *   getsentry/integration-platform-example compute the signature in their tests rather than fixing it;
 *   intercom-archive/intercom-webhooks' samples carry no signature): calendly, bitbucket, jira,
 *   sentry, intercom, vercel, typeform. Their deliveries are signed by another provider's library
 *   whose output is byte-for-byte the formula the provider documents: stripe's for Calendly
 *   (t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">), octokit's for Bitbucket and Jira
 *   ("sha256=<hex>") and, without its prefix, Sentry; twilio's HMAC-SHA1 (base64, written in hex) for
 *   Intercom and Vercel; square's base64 HMAC-SHA256, confirmed by square's own verifier, for
 *   WooCommerce and Typeform. That shows the preset matches the documented formula, not that a real
 *   delivery of theirs verifies.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { signWebhookPayload as notionSign, verifyWebhookSignature as notionVerify } from '@notionhq/client';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import { Paddle } from '@paddle/paddle-node-sdk';
import '@shopify/shopify-api/adapters/web-api';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import { EventSubMiddleware } from '@twurple/eventsub-http';
import { WebhooksHelper } from 'square';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import twilio from 'twilio';
import type { TestProject } from 'vitest/node';
import { PROVIDER_BODIES, PROVIDER_SECRETS, ZOOM_URL_VALIDATION, type ProviderDeliveries } from './provider-bodies';

const require = createRequire(import.meta.url);
const squareHmac: (payload: string, key: string) => Promise<string> = require(
  path.join(path.dirname(require.resolve('square')), 'core/crypto/createHmacOverride.js'),
).createHmacOverride;
// Loaded by Node's own require, not Vite's module runner, which would resolve their form-data
// dependency to its browser build. coinbase-commerce-node ships no types: typed here as used.
const coinbase: { Webhook: { verifySigHeader(payload: string, sigHeader: string, secret: string): boolean } } = require('coinbase-commerce-node');
const { verifySlackRequest }: typeof import('@slack/bolt') = require('@slack/bolt');
const { AwsLambdaReceiver }: typeof import('@zoom/rivet/users') = require('@zoom/rivet/users');

const hexOf = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const bare = async (secret: string, text: string) => (await octokitSign(secret, text)).slice('sha256='.length);

type Signer = (body: string, secret: string, ts: number) => Promise<Record<string, string>>;

const SIGNERS: Record<string, Signer> = {
  stripe: async (body, secret, ts) => ({ 'Stripe-Signature': await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, timestamp: ts }) }),
  calendly: async (body, secret, ts) => ({
    'Calendly-Webhook-Signature': await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, timestamp: ts }),
  }),
  github: async (body, secret) => ({ 'X-Hub-Signature-256': await octokitSign(secret, body) }),
  bitbucket: async (body, secret) => ({ 'X-Hub-Signature': await octokitSign(secret, body) }),
  jira: async (body, secret) => ({ 'X-Hub-Signature': await octokitSign(secret, body) }),
  notion: async (body, secret) => ({ 'X-Notion-Signature': await notionSign({ body, verificationToken: secret }) }),
  linear: async (body, secret) => ({ 'Linear-Signature': await bare(secret, body) }),
  'coinbase-commerce': async (body, secret) => ({ 'X-CC-Webhook-Signature': await bare(secret, body) }),
  sentry: async (body, secret, ts) => ({
    'Sentry-Hook-Signature': await bare(secret, body),
    'Sentry-Hook-Timestamp': String(ts),
    'Sentry-Hook-Resource': 'issue',
  }),
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
  shopify: async (body, secret) => ({
    'X-Shopify-Hmac-Sha256': await squareHmac(body, secret),
    'X-Shopify-Topic': 'orders/create',
    'X-Shopify-Shop-Domain': 'example-shop.myshopify.com',
    'X-Shopify-API-Version': '2025-10',
    'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
  }),
  woocommerce: async (body, secret) => ({ 'X-WC-Webhook-Signature': await squareHmac(body, secret), 'X-WC-Webhook-Topic': 'order.created' }),
  typeform: async (body, secret) => ({ 'Typeform-Signature': `sha256=${await squareHmac(body, secret)}` }),
};

/** A body changed in one value (a library that re-serializes the JSON, as Zoom's does, would not see a whitespace change). */
export const changedBody = (body: string) => body.replace(/:"/, ':"~');

const header = (headers: Record<string, string>, name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1] ?? '';

type LibraryCheck = { library: string; accepts: (body: string, headers: Record<string, string>, secret: string) => Promise<boolean> };

async function quietly<T>(run: () => Promise<T>): Promise<T> {
  // Zoom's receiver logs every event it is handed (console.debug), signature included.
  const debug = console.debug;
  console.debug = () => {};
  try {
    return await run();
  } finally {
    console.debug = debug;
  }
}

const shopify = (secret: string) =>
  shopifyApi({
    apiKey: 'presets-test',
    apiSecretKey: secret,
    scopes: [],
    hostName: 'hooks.example.com',
    apiVersion: ApiVersion.October25,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: async () => {} },
  });

/** The providers' own verifiers, run on the fresh deliveries of SIGNERS (Slack's judged at NOW_MS; the others check no time). */
const LIBRARY_CHECKS: Record<string, LibraryCheck> = {
  notion: {
    library: '@notionhq/client (verifyWebhookSignature)',
    accepts: (body, headers, secret) => notionVerify({ body, signature: header(headers, 'X-Notion-Signature'), verificationToken: secret }),
  },
  slack: {
    library: '@slack/bolt (verifySlackRequest)',
    accepts: async (body, headers, secret) => {
      const { NOW_MS } = await import('./helpers');
      try {
        verifySlackRequest({
          signingSecret: secret,
          body,
          headers: {
            'x-slack-request-timestamp': Number(header(headers, 'X-Slack-Request-Timestamp')),
            'x-slack-signature': header(headers, 'X-Slack-Signature'),
          },
          nowMilliseconds: NOW_MS,
        });
        return true;
      } catch {
        return false;
      }
    },
  },
  shopify: {
    library: '@shopify/shopify-api (webhooks.validate)',
    accepts: async (body, headers, secret) => {
      const result = await shopify(secret).webhooks.validate({
        rawBody: body,
        rawRequest: new Request('https://hooks.example.com/tp/svc1/shopify', { method: 'POST', headers, body }),
      });
      return result.valid;
    },
  },
  zoom: {
    library: '@zoom/rivet (AwsLambdaReceiver)',
    accepts: async (body, headers, secret) => {
      const handle = new AwsLambdaReceiver({ webhooksSecretToken: secret }).start();
      const answer = await quietly(() => handle({ body, headers, isBase64Encoded: false } as never, {} as never));
      return (answer as { statusCode: number }).statusCode === 200;
    },
  },
  twitch: {
    library: '@twurple/eventsub-http (the verifier its listener runs on each delivery)',
    accepts: async (body, headers, secret) => {
      const verify = (EventSubMiddleware.prototype as unknown as { _verifyData(id: string, timestamp: string, body: string, signature: string): boolean })
        ._verifyData;
      return verify.call(
        { _secret: secret },
        header(headers, 'Twitch-Eventsub-Message-Id'),
        header(headers, 'Twitch-Eventsub-Message-Timestamp'),
        body,
        header(headers, 'Twitch-Eventsub-Message-Signature'),
      );
    },
  },
  'coinbase-commerce': {
    library: 'coinbase-commerce-node (Webhook.verifySigHeader)',
    accepts: async (body, headers, secret) => {
      try {
        return coinbase.Webhook.verifySigHeader(body, header(headers, 'X-CC-Webhook-Signature'), secret);
      } catch {
        return false;
      }
    },
  },
};

/** Zoom's own receiver answering its url_validation handshake, signed as Zoom signs it (it checks no time). */
async function zoomValidation(): Promise<ProviderDeliveries['zoomValidation']> {
  const headers = await SIGNERS.zoom(ZOOM_URL_VALIDATION, PROVIDER_SECRETS.zoom, 1_760_000_000);
  const handle = new AwsLambdaReceiver({ webhooksSecretToken: PROVIDER_SECRETS.zoom }).start();
  const answer = (await quietly(() => handle({ body: ZOOM_URL_VALIDATION, headers, isBase64Encoded: false } as never, {} as never))) as {
    statusCode: number;
    body: string;
  };
  return { status: answer.statusCode, answer: JSON.parse(answer.body) };
}

/** A Linear delivery made now: LinearWebhookClient.verify checks webhookTimestamp against the real clock (one minute). */
async function linearNow(): Promise<ProviderDeliveries['linear']> {
  const nowMs = Date.now();
  const body = PROVIDER_BODIES.linear.replace(/"webhookTimestamp":\d+/, `"webhookTimestamp":${nowMs}`);
  const secret = PROVIDER_SECRETS.linear;
  const signature = (await SIGNERS.linear(body, secret, 0))['Linear-Signature'];
  const accepts = (text: string) => {
    try {
      return new LinearWebhookClient(secret).verify(Buffer.from(text), signature);
    } catch {
      return false;
    }
  };
  return { body, signature, nowMs, accepted: accepts(body), changedAccepted: accepts(changedBody(body)) };
}

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
  for (const [id, header, prefix] of [
    ['shopify', 'X-Shopify-Hmac-Sha256', ''],
    ['woocommerce', 'X-WC-Webhook-Signature', ''],
    ['typeform', 'Typeform-Signature', 'sha256='],
  ] as const) {
    squareConfirmed[id] = await squareAccepts(PROVIDER_BODIES[id], deliveries[id].fresh[header].slice(prefix.length), PROVIDER_SECRETS[id]);
  }
  // Paddle's validator checks against the real clock, so this header is signed now.
  const now = Math.floor(Date.now() / 1000);
  const paddleNow = (await SIGNERS.paddle(PROVIDER_BODIES.paddle, PROVIDER_SECRETS.paddle, now))['Paddle-Signature'];
  const paddleConfirmed = await new Paddle('pdl_sdbx_apikey_test_presets').webhooks.isSignatureValid(
    PROVIDER_BODIES.paddle,
    PROVIDER_SECRETS.paddle,
    paddleNow,
  );
  const providerLibraries: ProviderDeliveries['providerLibraries'] = {};
  for (const [id, check] of Object.entries(LIBRARY_CHECKS)) {
    const body = PROVIDER_BODIES[id];
    const headers = deliveries[id].fresh;
    providerLibraries[id] = {
      library: check.library,
      accepted: await check.accepts(body, headers, PROVIDER_SECRETS[id]),
      changedAccepted: await check.accepts(changedBody(body), headers, PROVIDER_SECRETS[id]),
    };
  }
  const linear = await linearNow();
  providerLibraries.linear = { library: '@linear/sdk (LinearWebhookClient.verify)', accepted: linear.accepted, changedAccepted: linear.changedAccepted };
  return {
    deliveries,
    squareConfirmed,
    paddle: { header: paddleNow, nowMs: now * 1000, confirmed: paddleConfirmed },
    providerLibraries,
    linear,
    zoomValidation: await zoomValidation(),
  };
}

export default async function setup(project: TestProject): Promise<void> {
  const { NOW_SECONDS } = await import('./helpers');
  project.provide('providerDeliveries', await signDeliveries(NOW_SECONDS, NOW_SECONDS - 3600));
}
