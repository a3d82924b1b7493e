import { Webhook } from 'standardwebhooks';

// key: the project's secureRequest key; headers and rawBody: the request exactly as it arrived.
export function verifySecureRequest(key, headers, rawBody) {
  const webhook = key.startsWith('whsec_')
    ? new Webhook(key) // whsec_<base64>: the decoded bytes are the HMAC key
    : new Webhook(new TextEncoder().encode(key), { format: 'raw' }); // any other key: its UTF-8 bytes
  // Throws unless webhook-signature matches webhook-id, webhook-timestamp (within 5 minutes) and the body.
  return webhook.verify(rawBody, headers); // { user, data, api_key }
}
