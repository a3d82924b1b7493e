import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, NOW_SECONDS, signedRequest } from './helpers';

// Slack signs `v0:${X-Slack-Request-Timestamp}:${body}` with HMAC-SHA256 of the signing secret and
// sends 'v0=<hex>' in X-Slack-Signature. Computed here per Slack's "Verifying requests from Slack".
const SLACK: SignatureConfig = {
  secretName: 'slack_signing_secret',
  header: 'X-Slack-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  parts: ['v0=${signature}'],
  signed: 'v0:${header:X-Slack-Request-Timestamp}:${body}',
  timestamp: '${header:X-Slack-Request-Timestamp}',
  tolerance: 300,
  secret_encoding: 'raw',
};

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BODY = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fwebbot&text=hello&trigger_id=398738663015.47445629121';

function slackSignature(secret: string, timestamp: number, body: string): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
}

function deliver(body: string, signature: string, timestamp = NOW_SECONDS) {
  return signedRequest(body, { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': String(timestamp) });
}

describe('Slack request signatures', () => {
  it('passes a valid X-Slack-Signature', async () => {
    const req = deliver(BODY, slackSignature(SECRET, NOW_SECONDS, BODY));
    expect(await verifySignature(SLACK, req, SECRET, NOW_MS)).toBe(true);
  });

  it('fails a tampered body', async () => {
    const req = deliver(BODY.replace('hello', 'rm -rf'), slackSignature(SECRET, NOW_SECONDS, BODY));
    expect(await verifySignature(SLACK, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails a request timestamp older than five minutes', async () => {
    const stale = NOW_SECONDS - 301;
    expect(await verifySignature(SLACK, deliver(BODY, slackSignature(SECRET, stale, BODY), stale), SECRET, NOW_MS)).toBe(false);
  });

  it('fails a replay whose timestamp header was moved to now', async () => {
    const req = deliver(BODY, slackSignature(SECRET, NOW_SECONDS - 3600, BODY), NOW_SECONDS);
    expect(await verifySignature(SLACK, req, SECRET, NOW_MS)).toBe(false);
  });

  it('fails with the wrong secret', async () => {
    const req = deliver(BODY, slackSignature('0000000000000000000000000000000a', NOW_SECONDS, BODY));
    expect(await verifySignature(SLACK, req, SECRET, NOW_MS)).toBe(false);
  });
});
