import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, signedRequest } from './helpers';

// Shopify sends base64(HMAC-SHA256(app client secret, raw body)) in X-Shopify-Hmac-Sha256.
// Computed here per Shopify's webhook verification documentation.
const SHOPIFY: SignatureConfig = {
  secretName: 'shopify_client_secret',
  header: 'X-Shopify-Hmac-Sha256',
  algorithm: 'sha256',
  encoding: 'base64',
  parts: ['${signature}'],
  signed: '${body}',
  tolerance: 300,
  secret_encoding: 'raw',
};

const SECRET = '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';
const BODY = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', total_price: '199.00', note: 'Café' });

function shopifyHmac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

describe('Shopify webhook signatures', () => {
  it('passes a valid X-Shopify-Hmac-Sha256', async () => {
    const req = signedRequest(BODY, { 'X-Shopify-Hmac-Sha256': shopifyHmac(SECRET, BODY) });
    expect(await verifySignature(SHOPIFY, req, SECRET, NOW_MS)).toBe(true);
  });

  it('fails a tampered body', async () => {
    const req = signedRequest(BODY.replace('199.00', '1.00'), { 'X-Shopify-Hmac-Sha256': shopifyHmac(SECRET, BODY) });
    expect(await verifySignature(SHOPIFY, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails with the wrong secret', async () => {
    const req = signedRequest(BODY, { 'X-Shopify-Hmac-Sha256': shopifyHmac('shpss_wrong', BODY) });
    expect(await verifySignature(SHOPIFY, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails the same digest written in hex', async () => {
    const hex = createHmac('sha256', SECRET).update(BODY).digest('hex');
    expect(await verifySignature(SHOPIFY, signedRequest(BODY, { 'X-Shopify-Hmac-Sha256': hex }), SECRET, NOW_MS)).toBe(false);
  });
});
