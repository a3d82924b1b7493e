/**
 * Standard Webhooks signatures of a mirrored request (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 *
 * The HMAC key is the project's secureRequest key: a key written `whsec_<base64>` is the bytes the base64
 * decodes to (as every Standard Webhooks library reads such a secret); any other key is its UTF-8 bytes.
 * A verifier builds the same key with `new Webhook(key)` for a whsec_ key, else with
 * `new Webhook(new TextEncoder().encode(key), { format: 'raw' })`.
 */
import { randomBase62, toBase64 } from '../../schemas/encoding';

const WHSEC_PREFIX = 'whsec_';
/** Padded standard base64 (the form Standard Webhooks secrets are written in). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The HMAC key bytes of a secureRequest key (see above). */
export function hmacKeyBytes(key: string): Uint8Array {
  const encoded = key.startsWith(WHSEC_PREFIX) ? key.slice(WHSEC_PREFIX.length) : undefined;
  if (encoded && BASE64.test(encoded)) return Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0));
  return new TextEncoder().encode(key);
}

export const importSigningKey = (key: string): Promise<CryptoKey> =>
  crypto.subtle.importKey('raw', hmacKeyBytes(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);

/** A fresh message id: `msg_` and 24 random base62 characters. */
export const newWebhookId = (): string => `msg_${randomBase62(24)}`;

/** The three signature headers of one body, signed now (`timestampSeconds`) under `id`. */
export async function signatureHeaders(key: CryptoKey, id: string, timestampSeconds: number, body: string): Promise<Record<string, string>> {
  const signed = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  const signature = toBase64(await crypto.subtle.sign('HMAC', key, signed));
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
