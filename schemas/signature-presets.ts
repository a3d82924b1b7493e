/**
 * Signature presets (issue 14): how each provider signs its webhooks, as the `signature` part of a
 * ticket condition without its secretName (the owner names the Secret Key that holds the provider's
 * secret). One place, for the MCP tool, the CLI and the dashboard; each preset is checked by a test
 * that verifies a signature made per the provider's documentation (test/signatures/presets.test.ts).
 *
 * Not here: Twilio's X-Twilio-Signature signs the full request URL plus the sorted form parameters,
 * and a signature's `signed` template has no URL token (spec 2.2.1), so it cannot be expressed.
 */
import type { SignatureConfig } from './ticket-types';

export interface SignaturePreset {
  id: string;
  name: string;
  /** Where the provider documents it. */
  docs: string;
  /** What the Secret Key must hold. */
  secret: string;
  signature: Omit<SignatureConfig, 'secretName'>;
}

export const SIGNATURE_PRESETS: readonly SignaturePreset[] = [
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
    signature: { header: 'X-Hub-Signature-256', algorithm: 'sha256', encoding: 'hex', parts: ['sha256=${signature}'], signed: '${body}', secret_encoding: 'raw' },
  },
  {
    id: 'slack',
    name: 'Slack',
    docs: 'https://api.slack.com/authentication/verifying-requests-from-slack',
    secret: "the app's signing secret",
    signature: { header: 'X-Slack-Signature', algorithm: 'sha256', encoding: 'hex', parts: ['v0=${signature}'], signed: 'v0:${header:X-Slack-Request-Timestamp}:${body}', timestamp: '${header:X-Slack-Request-Timestamp}', tolerance: 300, secret_encoding: 'raw' },
  },
  {
    id: 'shopify',
    name: 'Shopify',
    docs: 'https://shopify.dev/docs/apps/build/webhooks/subscribe/https#step-5-verify-the-webhook',
    secret: "the app's client secret",
    signature: { header: 'X-Shopify-Hmac-Sha256', algorithm: 'sha256', encoding: 'base64', parts: ['${signature}'], signed: '${body}', secret_encoding: 'raw' },
  },
  {
    id: 'standard-webhooks',
    name: 'Standard Webhooks (Svix, Clerk, Resend, …)',
    docs: 'https://www.standardwebhooks.com/',
    secret: 'the endpoint secret, whsec_<base64> as shown',
    signature: { header: 'webhook-signature', algorithm: 'sha256', encoding: 'base64', separator: ' ', parts: ['v1,${signature}'], signed: '${header:webhook-id}.${header:webhook-timestamp}.${body}', timestamp: '${header:webhook-timestamp}', tolerance: 300, secret_encoding: 'base64', secret_prefix: 'whsec_' },
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
    signature: { header: 'Linear-Signature', algorithm: 'sha256', encoding: 'hex', parts: ['${signature}'], signed: '${body}', secret_encoding: 'raw' },
  },
  {
    id: 'intercom',
    name: 'Intercom (HMAC-SHA1)',
    docs: 'https://developers.intercom.com/docs/references/webhooks/webhook-models#signed-notifications',
    secret: "the app's client secret",
    signature: { header: 'X-Hub-Signature', algorithm: 'sha1', encoding: 'hex', parts: ['sha1=${signature}'], signed: '${body}', secret_encoding: 'raw' },
  },
];

/** A preset's signature part with the Secret Key to verify with, ready for a ticket condition. */
export function presetSignature(id: string, secretName: string): SignatureConfig | undefined {
  const preset = SIGNATURE_PRESETS.find((p) => p.id === id);
  return preset ? { secretName, ...preset.signature } : undefined;
}
