/**
 * Presets that need the signature extensions (docs/signature-extensions.md; beyond spec 2.2.1): the
 * URL token (Twilio, Square, HubSpot v3), body fields (Mailgun, Linear's webhookTimestamp) and
 * public-key algorithms (Discord, SendGrid). Same shape as schemas/signature-presets.ts; merged into
 * that one list. Each is checked by test/signatures/extension-presets.test.ts against the
 * provider's own library where it has one (twilio, square, @hubspot/api-client, discord-interactions,
 * @sendgrid/eventwebhook), else against the provider's documented scheme.
 *
 * Not here: Paddle Classic's p_signature (RSA-SHA1 over the PHP-serialized, sorted form fields:
 * no template expresses PHP serialization); PayPal (its key comes in a certificate fetched from the
 * request's cert_url, and its signed string holds a CRC32 of the body).
 */
import type { SignaturePreset } from './signature-presets';

export const EXTENSION_PRESETS: readonly SignaturePreset[] = [
  {
    id: 'twilio',
    name: 'Twilio (voice, messaging; form and JSON bodies)',
    docs: 'https://www.twilio.com/docs/usage/webhooks/webhooks-security',
    secret:
      "the account's Auth Token. Twilio signs the URL configured in its console: when it is not the URL this service receives (custom domain, proxy), set public_url to it (https://host/path)",
    signature: {
      header: 'X-Twilio-Signature',
      algorithm: 'sha1',
      encoding: 'base64',
      parts: ['${signature}'],
      signed: '${url}${form:sorted}',
      secret_encoding: 'raw',
      body_sha256: '${query:bodySHA256}',
    },
  },
  {
    id: 'square',
    name: 'Square',
    docs: 'https://developer.squareup.com/docs/webhooks/step3validate',
    secret:
      "the webhook subscription's signature key. Square signs the notification URL as configured: set public_url when it is not the URL this service receives",
    signature: {
      header: 'X-Square-HmacSha256-Signature',
      algorithm: 'sha256',
      encoding: 'base64',
      parts: ['${signature}'],
      signed: '${url}${body}',
      secret_encoding: 'raw',
    },
  },
  {
    id: 'hubspot-v3',
    name: 'HubSpot (signature v3)',
    docs: 'https://developers.hubspot.com/docs/guides/apps/authentication/validating-requests',
    secret: "the app's client secret. HubSpot signs the URL it called: set public_url when it is not the URL this service receives",
    signature: {
      header: 'X-HubSpot-Signature-v3',
      algorithm: 'sha256',
      encoding: 'base64',
      parts: ['${signature}'],
      signed: '${method}${url}${body}${header:X-HubSpot-Request-Timestamp}',
      timestamp: '${header:X-HubSpot-Request-Timestamp}',
      tolerance: 300,
      secret_encoding: 'raw',
    },
  },
  {
    id: 'mailgun',
    name: 'Mailgun (JSON webhooks, signature in the body)',
    docs: 'https://documentation.mailgun.com/docs/mailgun/user-manual/tracking-messages/#securing-webhooks',
    secret: "the domain's HTTP webhook signing key",
    signature: {
      field: 'signature.signature',
      algorithm: 'sha256',
      encoding: 'hex',
      parts: ['${signature}'],
      signed: '${field:signature.timestamp}${field:signature.token}',
      timestamp: '${field:signature.timestamp}',
      tolerance: 300,
      secret_encoding: 'raw',
    },
  },
  {
    id: 'mailgun-form',
    name: 'Mailgun (form-encoded legacy webhooks and routes)',
    docs: 'https://documentation.mailgun.com/docs/mailgun/user-manual/tracking-messages/#securing-webhooks',
    secret: "the domain's HTTP webhook signing key",
    signature: {
      field: 'signature',
      algorithm: 'sha256',
      encoding: 'hex',
      parts: ['${signature}'],
      signed: '${field:timestamp}${field:token}',
      timestamp: '${field:timestamp}',
      tolerance: 300,
      secret_encoding: 'raw',
    },
  },
  {
    id: 'linear-with-timestamp',
    idempotencyKey: '${headers[Linear-Delivery]}',
    name: 'Linear (with its webhookTimestamp freshness check)',
    docs: 'https://linear.app/developers/webhooks#securing-webhooks',
    secret: "the webhook's signing secret",
    signature: {
      header: 'Linear-Signature',
      algorithm: 'sha256',
      encoding: 'hex',
      parts: ['${signature}'],
      signed: '${body}',
      timestamp: '${field:webhookTimestamp}',
      tolerance: 60,
      secret_encoding: 'raw',
    },
  },
  {
    id: 'discord',
    name: 'Discord (interactions endpoint, Ed25519)',
    docs: 'https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers',
    secret: "the application's Public Key (64 hex characters, from the Developer Portal's General Information)",
    signature: {
      header: 'X-Signature-Ed25519',
      algorithm: 'ed25519',
      encoding: 'hex',
      parts: ['${signature}'],
      signed: '${header:X-Signature-Timestamp}${body}',
      timestamp: '${header:X-Signature-Timestamp}',
      tolerance: 300,
      secret_encoding: 'raw',
    },
    handshake: 'discord',
  },
  {
    id: 'sendgrid',
    name: 'SendGrid / Twilio SendGrid Event Webhook (ECDSA P-256)',
    docs: 'https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features',
    secret: "the Event Webhook's verification key as shown (base64 of the SPKI public key; PEM also accepted)",
    signature: {
      header: 'X-Twilio-Email-Event-Webhook-Signature',
      algorithm: 'ecdsa-p256-sha256',
      encoding: 'base64',
      parts: ['${signature}'],
      signed: '${header:X-Twilio-Email-Event-Webhook-Timestamp}${body}',
      secret_encoding: 'raw',
    },
  },
  {
    id: 'rsa-sha256-body',
    name: 'RSA-SHA256 over the body (any sender; owner-supplied public key)',
    docs: 'https://www.rfc-editor.org/rfc/rfc8017#section-8.2',
    secret: "the sender's RSA public key as SPKI PEM (-----BEGIN PUBLIC KEY-----) or base64 DER; rename header to the one the sender uses",
    signature: { header: 'X-Signature', algorithm: 'rsa-sha256', encoding: 'base64', parts: ['${signature}'], signed: '${body}', secret_encoding: 'raw' },
  },
];
