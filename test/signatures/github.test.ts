import { sign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, signedRequest } from './helpers';

// GitHub signs the raw body with HMAC-SHA256 and sends 'sha256=<hex>' in X-Hub-Signature-256.
const GITHUB: SignatureConfig = {
  secretName: 'github_webhook_secret',
  header: 'X-Hub-Signature-256',
  algorithm: 'sha256',
  encoding: 'hex',
  parts: ['sha256=${signature}'],
  signed: '${body}',
  tolerance: 300,
  secret_encoding: 'raw',
};

const SECRET = 'gh-hook-secret-5d1f';
const PAYLOAD = JSON.stringify({ action: 'opened', pull_request: { number: 7, title: 'Grüße ✓' } });

describe('GitHub signatures made by @octokit/webhooks-methods', () => {
  it('passes a valid X-Hub-Signature-256 header', async () => {
    const header = await sign(SECRET, PAYLOAD);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifySignature(GITHUB, signedRequest(PAYLOAD, { 'X-Hub-Signature-256': header }), SECRET, NOW_MS)).toBe(true);
  });

  it('passes the test values published in GitHub\'s "Validating webhook deliveries"', async () => {
    const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    const req = signedRequest('Hello, World!', { 'X-Hub-Signature-256': header });
    expect(await verifySignature(GITHUB, req, "It's a Secret to Everybody", NOW_MS)).toBe(true);
  });

  it('fails a tampered body', async () => {
    const header = await sign(SECRET, PAYLOAD);
    const req = signedRequest(PAYLOAD.replace('opened', 'closed'), { 'X-Hub-Signature-256': header });
    expect(await verifySignature(GITHUB, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails with the wrong secret', async () => {
    const header = await sign('another-secret', PAYLOAD);
    expect(await verifySignature(GITHUB, signedRequest(PAYLOAD, { 'X-Hub-Signature-256': header }), SECRET, NOW_MS)).toBe(false);
  });

  it('fails the bare hex without the sha256= prefix', async () => {
    const header = (await sign(SECRET, PAYLOAD)).slice('sha256='.length);
    expect(await verifySignature(GITHUB, signedRequest(PAYLOAD, { 'X-Hub-Signature-256': header }), SECRET, NOW_MS)).toBe(false);
  });
});
