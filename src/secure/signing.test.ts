import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { hmacKeyBytes, importSigningKey, newWebhookId, signatureHeaders } from './signing';

const BODY = JSON.stringify({ user: { user_id: 'u1', access_group: 1 }, data: { a: 'ü' }, api_key: 'k' });
const NOW = Math.floor(Date.now() / 1000);

async function signed(key: string, body = BODY) {
  return signatureHeaders(await importSigningKey(key), 'msg_test', NOW, body);
}

describe('Standard Webhooks signature of a mirrored request', () => {
  it('a whsec_ key signs with the bytes its base64 decodes to: new Webhook(key) verifies, and the library signs the same', async () => {
    const key = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
    const headers = await signed(key);
    expect(headers['webhook-signature']).toBe(new Webhook(key).sign('msg_test', new Date(NOW * 1000), BODY));
    expect(new Webhook(key).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it("any other key signs with its UTF-8 bytes: new Webhook(utf8 bytes, { format: 'raw' }) verifies (non-ASCII keys included)", async () => {
    for (const key of ['srk-plain-key', 'clé-ключ-🔑', 'whsec_not base64!']) {
      const headers = await signed(key);
      expect(new Webhook(new TextEncoder().encode(key), { format: 'raw' }).verify(BODY, headers), key).toEqual(JSON.parse(BODY));
    }
  });

  it('a whsec_ key whose rest is not padded base64 is read as UTF-8 text, whole', () => {
    expect(hmacKeyBytes('whsec_abc')).toEqual(new TextEncoder().encode('whsec_abc'));
    expect(hmacKeyBytes('whsec_YWJj')).toEqual(new TextEncoder().encode('abc'));
  });

  it('a changed body, id or timestamp, or another key, fails verification', async () => {
    const key = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
    const headers = await signed(key);
    const webhook = new Webhook(key);
    expect(() => webhook.verify(BODY.replace('u1', 'u2'), headers)).toThrow();
    expect(() => webhook.verify(BODY, { ...headers, 'webhook-id': 'msg_other' })).toThrow();
    expect(() => webhook.verify(BODY, { ...headers, 'webhook-timestamp': String(NOW - 1) })).toThrow();
    expect(() => new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(BODY, headers)).toThrow();
  });

  it('the headers are webhook-id, webhook-timestamp (unix seconds) and webhook-signature v1,<base64>', async () => {
    const headers = await signed('k');
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-timestamp']).toBe(String(NOW));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('message ids are msg_ and 24 base62 characters, new every time', () => {
    const ids = new Set(Array.from({ length: 100 }, newWebhookId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-Za-z]{24}$/);
  });
});
