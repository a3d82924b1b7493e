import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, NOW_SECONDS, signedRequest } from './helpers';

// Standard Webhooks (Svix and others) sign `${webhook-id}.${webhook-timestamp}.${body}` with
// HMAC-SHA256 keyed by the base64 after 'whsec_'; webhook-signature holds space-separated 'v1,<base64>'.
const STANDARD_WEBHOOKS: SignatureConfig = {
  secretName: 'standard_webhooks_secret',
  header: 'webhook-signature',
  algorithm: 'sha256',
  encoding: 'base64',
  separator: ' ',
  parts: ['v1,${signature}'],
  signed: '${header:webhook-id}.${header:webhook-timestamp}.${body}',
  timestamp: '${header:webhook-timestamp}',
  tolerance: 300,
  secret_encoding: 'base64',
  secret_prefix: 'whsec_',
};

const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const MSG_ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const PAYLOAD = JSON.stringify({ type: 'invoice.paid', data: { id: 'inv_1', total: 1200 } });

function deliver(payload: string, signature: string, timestamp = NOW_SECONDS, id = MSG_ID) {
  return signedRequest(payload, { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });
}

function sign(secret: string, timestamp = NOW_SECONDS, payload = PAYLOAD, id = MSG_ID): string {
  return new Webhook(secret).sign(id, new Date(timestamp * 1000), payload);
}

describe('Standard Webhooks signatures made by the standardwebhooks library', () => {
  it('passes a valid webhook-signature header', async () => {
    const signature = sign(SECRET);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(await verifySignature(STANDARD_WEBHOOKS, deliver(PAYLOAD, signature), SECRET, NOW_MS)).toBe(true);
  });

  it('passes the example published in the Standard Webhooks / Svix documentation', async () => {
    const req = signedRequest('{"test": 2432232314}', {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
    expect(await verifySignature(STANDARD_WEBHOOKS, req, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1614265330_000)).toBe(true);
  });

  it('fails a tampered body', async () => {
    const req = deliver(PAYLOAD.replace('1200', '1'), sign(SECRET));
    expect(await verifySignature(STANDARD_WEBHOOKS, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails a tampered webhook-id', async () => {
    const req = deliver(PAYLOAD, sign(SECRET), NOW_SECONDS, 'msg_other');
    expect(await verifySignature(STANDARD_WEBHOOKS, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails a timestamp outside the tolerance, and a replay with the timestamp moved to now', async () => {
    const stale = deliver(PAYLOAD, sign(SECRET, NOW_SECONDS - 301), NOW_SECONDS - 301);
    expect(await verifySignature(STANDARD_WEBHOOKS, stale, SECRET, NOW_MS)).toBe(false);
    const moved = deliver(PAYLOAD, sign(SECRET, NOW_SECONDS - 3600), NOW_SECONDS);
    expect(await verifySignature(STANDARD_WEBHOOKS, moved, SECRET, NOW_MS)).toBe(false);
  });

  it('fails with the wrong secret', async () => {
    const other = 'whsec_' + btoa('a completely different key');
    expect(await verifySignature(STANDARD_WEBHOOKS, deliver(PAYLOAD, sign(other)), SECRET, NOW_MS)).toBe(false);
  });

  it('passes when one of several space-separated signatures matches (key rotation)', async () => {
    const old = sign('whsec_' + btoa('the key before rotation'));
    const header = `v1a,AAAA ${old} ${sign(SECRET)}`;
    expect(await verifySignature(STANDARD_WEBHOOKS, deliver(PAYLOAD, header), SECRET, NOW_MS)).toBe(true);
    expect(await verifySignature(STANDARD_WEBHOOKS, deliver(PAYLOAD, old), SECRET, NOW_MS)).toBe(false);
  });
});
