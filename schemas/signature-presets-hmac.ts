/**
 * HMAC presets: providers whose signature the template of spec 2.2.1 expresses as it is (a header,
 * an HMAC of the body with headers or captured values, optionally a timestamp). Listed through
 * SIGNATURE_PRESETS (signature-presets.ts). The tests sign with each provider's library where it has
 * one (test/signatures/provider-signers.ts).
 */
import type { SignaturePreset } from './signature-presets';

const HEX_BODY = { algorithm: 'sha256', encoding: 'hex', signed: '${body}', secret_encoding: 'raw' } as const;
const BASE64_BODY = { algorithm: 'sha256', encoding: 'base64', signed: '${body}', secret_encoding: 'raw' } as const;

export const HMAC_PRESETS: readonly SignaturePreset[] = [
  {
    id: 'stripe',
    name: 'Stripe',
    docs: 'https://docs.stripe.com/webhooks#verify-manually',
    secret: "the endpoint's signing secret, whsec_… as shown (used as written)",
    signature: { header: 'Stripe-Signature', algorithm: 'sha256', encoding: 'hex', separator: ',', parts: ['t=${timestamp}', 'v1=${signature}'], signed: '${timestamp}.${body}', timestamp: '${timestamp}', tolerance: 300, secret_encoding: 'raw' },
  },
  {
    id: 'github',
    name: 'GitHub',
    docs: 'https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries',
    secret: "the webhook's secret",
    signature: { header: 'X-Hub-Signature-256', ...HEX_BODY, parts: ['sha256=${signature}'] },
  },
  {
    id: 'slack',
    name: 'Slack',
    docs: 'https://api.slack.com/authentication/verifying-requests-from-slack',
    secret: "the app's signing secret",
    signature: { header: 'X-Slack-Signature', algorithm: 'sha256', encoding: 'hex', parts: ['v0=${signature}'], signed: 'v0:${header:X-Slack-Request-Timestamp}:${body}', timestamp: '${header:X-Slack-Request-Timestamp}', tolerance: 300, secret_encoding: 'raw' },
    handshake: 'slack',
  },
  {
    id: 'shopify',
    name: 'Shopify',
    docs: 'https://shopify.dev/docs/apps/build/webhooks/subscribe/https#step-5-verify-the-webhook',
    secret: "the app's client secret",
    signature: { header: 'X-Shopify-Hmac-Sha256', ...BASE64_BODY, parts: ['${signature}'] },
  },
  {
    id: 'standard-webhooks',
    name: 'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers)',
    docs: 'https://www.standardwebhooks.com/',
    secret: 'the endpoint secret, whsec_<base64> as shown',
    signature: { header: 'webhook-signature', algorithm: 'sha256', encoding: 'base64', separator: ' ', parts: ['v1,${signature}'], signed: '${header:webhook-id}.${header:webhook-timestamp}.${body}', timestamp: '${header:webhook-timestamp}', tolerance: 300, secret_encoding: 'base64', secret_prefix: 'whsec_' },
  },
  {
    id: 'svix',
    name: 'Svix, Clerk, Resend (svix-id, svix-timestamp, svix-signature headers)',
    docs: 'https://docs.svix.com/receiving/verifying-payloads/how-manual',
    secret: 'the endpoint signing secret, whsec_<base64> as shown (Clerk: Webhooks → Signing Secret; Resend: the webhook signing secret)',
    signature: { header: 'svix-signature', algorithm: 'sha256', encoding: 'base64', separator: ' ', parts: ['v1,${signature}'], signed: '${header:svix-id}.${header:svix-timestamp}.${body}', timestamp: '${header:svix-timestamp}', tolerance: 300, secret_encoding: 'base64', secret_prefix: 'whsec_' },
  },
  {
    id: 'paddle',
    name: 'Paddle Billing',
    docs: 'https://developer.paddle.com/webhooks/signature-verification',
    secret: "the notification destination's secret key (pdl_ntfset_…)",
    signature: { header: 'Paddle-Signature', algorithm: 'sha256', encoding: 'hex', separator: ';', parts: ['ts=${timestamp}', 'h1=${signature}'], signed: '${timestamp}:${body}', timestamp: '${timestamp}', tolerance: 5, secret_encoding: 'raw' },
  },
  {
    id: 'linear',
    name: 'Linear',
    docs: 'https://linear.app/developers/webhooks#securing-webhooks',
    secret: "the webhook's signing secret",
    signature: { header: 'Linear-Signature', ...HEX_BODY, parts: ['${signature}'] },
    note: 'Linear sends its timestamp in the body (webhookTimestamp): freshness is not checked until a body-field token exists.',
  },
  {
    id: 'zoom',
    name: 'Zoom',
    docs: 'https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events',
    secret: "the app's webhook Secret Token",
    signature: { header: 'x-zm-signature', algorithm: 'sha256', encoding: 'hex', parts: ['v0=${signature}'], signed: 'v0:${header:x-zm-request-timestamp}:${body}', timestamp: '${header:x-zm-request-timestamp}', tolerance: 300, secret_encoding: 'raw' },
    handshake: 'zoom',
  },
  {
    id: 'intercom',
    name: 'Intercom (HMAC-SHA1)',
    docs: 'https://developers.intercom.com/docs/references/webhooks/webhook-models#signed-notifications',
    secret: "the app's client secret",
    signature: { header: 'X-Hub-Signature', ...HEX_BODY, algorithm: 'sha1', parts: ['sha1=${signature}'] },
  },
  {
    id: 'typeform',
    name: 'Typeform',
    docs: 'https://www.typeform.com/developers/webhooks/secure-your-webhooks/',
    secret: "the webhook's secret (set in Typeform)",
    signature: { header: 'Typeform-Signature', ...BASE64_BODY, parts: ['sha256=${signature}'] },
  },
  {
    id: 'calendly',
    name: 'Calendly',
    docs: 'https://developer.calendly.com/api-docs/4c305798a61d3-webhook-signatures',
    secret: "the webhook subscription's signing key",
    signature: { header: 'Calendly-Webhook-Signature', algorithm: 'sha256', encoding: 'hex', separator: ',', parts: ['t=${timestamp}', 'v1=${signature}'], signed: '${timestamp}.${body}', timestamp: '${timestamp}', tolerance: 180, secret_encoding: 'raw' },
  },
  {
    id: 'vercel',
    name: 'Vercel (HMAC-SHA1)',
    docs: 'https://vercel.com/docs/webhooks/webhooks-api#securing-webhooks',
    secret: "the webhook's secret (or the integration's client secret)",
    signature: { header: 'x-vercel-signature', ...HEX_BODY, algorithm: 'sha1', parts: ['${signature}'] },
  },
  {
    id: 'bitbucket',
    name: 'Bitbucket Cloud',
    docs: 'https://support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/',
    secret: "the webhook's secret",
    signature: { header: 'X-Hub-Signature', ...HEX_BODY, parts: ['sha256=${signature}'] },
  },
  {
    id: 'jira',
    name: 'Jira / Atlassian Cloud',
    docs: 'https://developer.atlassian.com/cloud/jira/platform/webhooks/#secure-admin-webhooks',
    secret: "the webhook's secret",
    signature: { header: 'X-Hub-Signature', ...HEX_BODY, parts: ['sha256=${signature}'] },
  },
  {
    id: 'coinbase-commerce',
    name: 'Coinbase Commerce',
    docs: 'https://docs.cdp.coinbase.com/commerce-onchain/docs/webhooks-security',
    secret: "the shared secret of the webhook subscription",
    signature: { header: 'X-CC-Webhook-Signature', ...HEX_BODY, parts: ['${signature}'] },
  },
  {
    id: 'woocommerce',
    name: 'WooCommerce',
    docs: 'https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks',
    secret: "the webhook's secret",
    signature: { header: 'X-WC-Webhook-Signature', ...BASE64_BODY, parts: ['${signature}'] },
  },
  {
    id: 'sentry',
    name: 'Sentry',
    docs: 'https://docs.sentry.io/organization/integrations/integration-platform/webhooks/#sentry-hook-signature',
    secret: "the integration's client secret",
    signature: { header: 'Sentry-Hook-Signature', ...HEX_BODY, parts: ['${signature}'] },
  },
  {
    id: 'notion',
    name: 'Notion',
    docs: 'https://developers.notion.com/reference/webhooks#step-3-validating-event-payloads-recommended',
    secret: 'the verification_token Notion sent to the endpoint when the subscription was created (read it from the log)',
    signature: { header: 'X-Notion-Signature', ...HEX_BODY, parts: ['sha256=${signature}'] },
    note: 'The one-time verification request carries no signature: let it through a ticket without the signature, read verification_token from the log, then add the preset.',
  },
  {
    id: 'twitch',
    name: 'Twitch EventSub',
    docs: 'https://dev.twitch.tv/docs/eventsub/handling-webhook-events/#verifying-the-event-message',
    secret: 'the secret given when the subscription was created',
    signature: { header: 'Twitch-Eventsub-Message-Signature', ...HEX_BODY, parts: ['sha256=${signature}'], signed: '${header:Twitch-Eventsub-Message-Id}${header:Twitch-Eventsub-Message-Timestamp}${body}' },
    handshake: 'twitch',
    note: 'Twitch-Eventsub-Message-Timestamp is RFC 3339 text, not unix seconds: freshness is not checked.',
  },
];
