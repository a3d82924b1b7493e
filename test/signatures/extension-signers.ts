/**
 * Vitest globalSetup (runs in Node, not in workerd): deliveries signed, or checked, by the providers'
 * own Node libraries, which do not load in workerd (twilio, square, @hubspot/api-client,
 * @sendgrid/eventwebhook, discord-interactions). Each delivery is also checked with the provider's
 * own verifier here, so a test in workerd knows the delivery is one the provider's code accepts.
 * Tests read them with `inject('extensionDeliveries')` (the HMAC presets' are in provider-signers.ts).
 * `discord-ping` is Discord's handshake, for test/signatures/handshakes.test.ts.
 */
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { Signature as HubSpotSignature } from '@hubspot/api-client/lib/src/utils/signature';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { verifyKey } from 'discord-interactions';
import { WebhooksHelper } from 'square';
import twilio from 'twilio';
import type { TestProject } from 'vitest/node';

export interface ProviderDelivery {
  /** What the Secret Key holds (a shared secret, or a public key). */
  secret: string;
  /** The URL the provider called. */
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
  /** When it was signed (ms). */
  signedAtMs: number;
  /**
   * Discord's PING only: the Ed25519 private key that signed it (PKCS#8, base64), so a test can sign
   * the same PING at the time it sends it (the handshake is judged at the Worker's clock).
   */
  signingKey?: string;
}

export type ProviderDeliveries = Record<string, ProviderDelivery>;

const NOW_SECONDS = 1_760_000_000;
const NOW_MS = NOW_SECONDS * 1000;
const JSON_BODY = JSON.stringify({ id: 'evt_42', type: 'order.paid', amount: 1200, note: 'größe ✓' });

function assertAccepted(provider: string, accepted: boolean): void {
  if (!accepted) throw new Error(`extension-signers: ${provider}'s own library refused the delivery made for it`);
}

async function deliveries(): Promise<ProviderDeliveries> {
  const out: ProviderDeliveries = {};

  // Twilio, form body: the URL (with its query) then every form parameter sorted, each name followed by its value.
  {
    const token = '12345678901234567890123456789012';
    const url = 'https://hooks.example.com/tp/svc1/sms-in?channel=sms';
    const params = { To: '+15550100', From: '+15550199', Body: 'Hello größe ✓ & more', MessageSid: 'SM123', NumMedia: '0' };
    const signature = twilio.getExpectedTwilioSignature(token, url, params);
    assertAccepted('twilio (form)', twilio.validateRequest(token, signature, url, params));
    const body = new URLSearchParams(params).toString();
    out.twilio = {
      secret: token,
      url,
      method: 'POST',
      headers: { 'X-Twilio-Signature': signature, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      signedAtMs: NOW_MS,
    };
  }
  // Twilio, JSON body: the URL carries bodySHA256 (hex SHA-256 of the body) and alone is signed.
  {
    const token = '12345678901234567890123456789012';
    const bodyHash = twilio.getExpectedBodyHash(JSON_BODY);
    const url = `https://hooks.example.com/tp/svc1/events?bodySHA256=${bodyHash}`;
    const signature = twilio.getExpectedTwilioSignature(token, url, {});
    assertAccepted('twilio (JSON)', twilio.validateRequestWithBody(token, signature, url, JSON_BODY));
    out['twilio-json'] = {
      secret: token,
      url,
      method: 'POST',
      headers: { 'X-Twilio-Signature': signature, 'Content-Type': 'application/json' },
      body: JSON_BODY,
      signedAtMs: NOW_MS,
    };
  }
  // Square: base64 HMAC-SHA256 of the notification URL followed by the body (Square's helper only verifies).
  {
    const key = 'sq0wbs-signature-key-example';
    const url = 'https://hooks.example.com/tp/svc1/square';
    const signature = createHmac('sha256', key)
      .update(url + JSON_BODY)
      .digest('base64');
    assertAccepted(
      'square',
      await WebhooksHelper.verifySignature({ requestBody: JSON_BODY, signatureHeader: signature, signatureKey: key, notificationUrl: url }),
    );
    out.square = {
      secret: key,
      url,
      method: 'POST',
      headers: { 'X-Square-HmacSha256-Signature': signature, 'Content-Type': 'application/json' },
      body: JSON_BODY,
      signedAtMs: NOW_MS,
    };
  }
  // HubSpot v3: base64 HMAC-SHA256 of method + URL + body + timestamp (ms).
  {
    const clientSecret = 'hubspot-client-secret-0000';
    const url = 'https://hooks.example.com/tp/svc1/hubspot?portal=42';
    const timestamp = NOW_MS;
    const signature = HubSpotSignature.getSignature('POST', 'v3', { clientSecret, url, requestBody: JSON_BODY, timestamp, signature: '' });
    out['hubspot-v3'] = {
      secret: clientSecret,
      url,
      method: 'POST',
      headers: { 'X-HubSpot-Signature-v3': signature, 'X-HubSpot-Request-Timestamp': String(timestamp), 'Content-Type': 'application/json' },
      body: JSON_BODY,
      signedAtMs: NOW_MS,
    };
  }
  // Discord: Ed25519 over timestamp + body, hex; checked by discord-interactions' verifyKey.
  {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const publicHex = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('hex');
    const body = JSON.stringify({
      type: 2,
      id: '1190000000000000000',
      application_id: '1180000000000000000',
      data: { name: 'hello' },
      token: 'interaction-token',
    });
    const timestamp = String(NOW_SECONDS);
    const signature = sign(null, Buffer.from(timestamp + body), privateKey).toString('hex');
    assertAccepted('discord', await verifyKey(body, signature, timestamp, publicHex));
    out.discord = {
      secret: publicHex,
      url: 'https://hooks.example.com/tp/svc1/discord',
      method: 'POST',
      headers: { 'X-Signature-Ed25519': signature, 'X-Signature-Timestamp': timestamp, 'Content-Type': 'application/json' },
      body,
      signedAtMs: NOW_MS,
    };

    // The PING Discord sends to an interactions endpoint before saving it (its docs, "Receiving an
    // interaction"), signed with the same key and checked by verifyKey; a test signs it again at its
    // own time with the key (Ed25519 signatures are deterministic, so it can check it signs alike).
    const ping = JSON.stringify({
      type: 1,
      id: '1170826040441561118',
      application_id: '1170824891374231552',
      token: 'aW50ZXJhY3Rpb246MTE3MDgyNjA0MDQ0MTU2MTExODpzU0lEaEtNUlBj',
      version: 1,
    });
    const pingSignature = sign(null, Buffer.from(timestamp + ping), privateKey).toString('hex');
    assertAccepted('discord (PING)', await verifyKey(ping, pingSignature, timestamp, publicHex));
    if (await verifyKey(ping.replace('"type":1', '"type":2'), pingSignature, timestamp, publicHex))
      throw new Error('extension-signers: discord-interactions accepted a changed PING');
    out['discord-ping'] = {
      secret: publicHex,
      url: 'https://hooks.example.com/tp/svc1/discord',
      method: 'POST',
      headers: { 'X-Signature-Ed25519': pingSignature, 'X-Signature-Timestamp': timestamp, 'Content-Type': 'application/json' },
      body: ping,
      signedAtMs: NOW_MS,
      signingKey: (privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer).toString('base64'),
    };
  }
  // SendGrid: ECDSA P-256 SHA-256 over timestamp + body, DER signature in base64; checked by @sendgrid/eventwebhook.
  {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const verificationKey = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
    const body = `${JSON.stringify([{ email: 'a@example.com', event: 'delivered', sg_event_id: 'ev1', timestamp: NOW_SECONDS }])}\r\n`;
    const timestamp = String(NOW_SECONDS);
    const signature = sign('sha256', Buffer.from(timestamp + body), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
    const webhook = new EventWebhook();
    assertAccepted('sendgrid', webhook.verifySignature(webhook.convertPublicKeyToECDSA(verificationKey), body, signature, timestamp));
    out.sendgrid = {
      secret: verificationKey,
      url: 'https://hooks.example.com/tp/svc1/sendgrid',
      method: 'POST',
      headers: { 'X-Twilio-Email-Event-Webhook-Signature': signature, 'X-Twilio-Email-Event-Webhook-Timestamp': timestamp, 'Content-Type': 'application/json' },
      body,
      signedAtMs: NOW_MS,
    };
  }
  return out;
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('extensionDeliveries', await deliveries());
}
