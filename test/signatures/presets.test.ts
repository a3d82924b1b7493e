/**
 * Every signature preset of schemas/signature-presets.ts verifies a delivery signed (or checked) by its
 * provider's own library (test/signatures/provider-signers.ts, run in Node, says per provider which,
 * and which providers have neither a library nor a published example) or the provider's published
 * example; refuses a tampered body, another secret and, where the scheme has a timestamp, a delivery
 * signed an hour ago; and registers as a ticket condition unchanged. Token presets (GitLab, Postmark)
 * are test/signatures/token-presets.test.ts's.
 */
import { describe, expect, inject, it } from 'vitest';
import { normalizeSignature } from '../../schemas/signature';
import { presetSignature, SIGNATURE_PRESETS } from '../../schemas/signature-presets';
import { EXTENSION_PRESETS } from '../../schemas/signature-presets-extensions';
import { verifySignature } from '../../src/engine/signature';
import { NOW_MS, signedRequest } from './helpers';
import { PROVIDER_BODIES, PROVIDER_SECRETS } from './provider-bodies';

const { deliveries, squareConfirmed, paddle, providerLibraries, linear } = inject('providerDeliveries');
// The HMAC presets of the template itself; those needing the extensions are test/signatures/extension-presets.test.ts's, the token ones token-presets.test.ts's.
const SIGNED = SIGNATURE_PRESETS.filter(
  (preset) => preset.signature && preset.signature.algorithm !== 'token' && !EXTENSION_PRESETS.some((extension) => extension.id === preset.id),
);
const TIMED = SIGNED.filter((preset) => preset.signature!.timestamp);

const tamper = (body: string) => body.replace('":', '" :');

describe('signature presets', () => {
  it('every signature preset has a delivery signed by a provider library, and ids are unique', () => {
    const ids = SIGNATURE_PRESETS.map((preset) => preset.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(SIGNED.map((p) => p.id).sort()).toEqual(Object.keys(deliveries).sort());
  });

  it('every preset names its provider, its docs link and what the key holds', () => {
    for (const preset of SIGNATURE_PRESETS) {
      expect(preset.name).not.toBe('');
      expect(preset.docs).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+\//);
      expect(preset.secret.length).toBeGreaterThan(5);
    }
  });

  it.each(SIGNED.map((preset) => [preset.id] as const))(
    '%s: a delivery signed by the provider library verifies; a tampered body or another secret does not',
    async (id) => {
      const config = presetSignature(id, 'provider_secret')!;
      const body = PROVIDER_BODIES[id];
      const secret = PROVIDER_SECRETS[id];
      const headers = deliveries[id].fresh;
      expect(tamper(body)).not.toBe(body);
      expect(await verifySignature(config, signedRequest(body, headers), secret, NOW_MS)).toBe(true);
      expect(await verifySignature(config, signedRequest(tamper(body), headers), secret, NOW_MS)).toBe(false);
      expect(await verifySignature(config, signedRequest(body, headers), `${secret}x`, NOW_MS)).toBe(false);
    },
  );

  it.each(TIMED.map((preset) => [preset.id] as const))('%s: a delivery signed an hour ago is refused as stale', async (id) => {
    const config = presetSignature(id, 'provider_secret')!;
    const stale = signedRequest(PROVIDER_BODIES[id], deliveries[id].stale);
    expect(await verifySignature(config, stale, PROVIDER_SECRETS[id], NOW_MS)).toBe(false);
    // The same delivery passes at the time it was signed: only its age failed it.
    const signedAtMs = NOW_MS - 3600_000;
    expect(await verifySignature(config, stale, PROVIDER_SECRETS[id], signedAtMs)).toBe(true);
  });

  it.each(SIGNATURE_PRESETS.filter((p) => p.signature).map((preset) => [preset.id] as const))(
    '%s: registers as a ticket condition unchanged (its stored form)',
    (id) => {
      const config = presetSignature(id, 'provider_secret')!;
      expect(normalizeSignature(config, 'condition.signature', [])).toEqual(config);
    },
  );

  it.each(Object.keys(providerLibraries).map((id) => [id] as const))(
    "%s: the provider's own library accepts the delivery the preset verifies, and refuses it with a body value changed",
    (id) => {
      expect(providerLibraries[id]).toMatchObject({ accepted: true, changedAccepted: false });
    },
  );

  it('the providers with an npm library that checks deliveries are each checked by it', () => {
    expect(Object.keys(providerLibraries).sort()).toEqual(['coinbase-commerce', 'linear', 'notion', 'shopify', 'slack', 'twitch', 'zoom']);
  });

  it("linear and linear-with-timestamp: a delivery Linear's own LinearWebhookClient.verify accepted at the real clock verifies with both presets", async () => {
    expect(linear.accepted).toBe(true);
    const request = signedRequest(linear.body, { 'Linear-Signature': linear.signature });
    for (const id of ['linear', 'linear-with-timestamp']) {
      expect(await verifySignature(presetSignature(id, 'k')!, request, PROVIDER_SECRETS.linear, linear.nowMs)).toBe(true);
      expect(
        await verifySignature(
          presetSignature(id, 'k')!,
          signedRequest(tamper(linear.body), { 'Linear-Signature': linear.signature }),
          PROVIDER_SECRETS.linear,
          linear.nowMs,
        ),
      ).toBe(false);
    }
    // Linear documents a minute: two minutes later only the preset that reads webhookTimestamp refuses it.
    expect(await verifySignature(presetSignature('linear-with-timestamp', 'k')!, request, PROVIDER_SECRETS.linear, linear.nowMs + 120_000)).toBe(false);
    expect(await verifySignature(presetSignature('linear', 'k')!, request, PROVIDER_SECRETS.linear, linear.nowMs + 120_000)).toBe(true);
  });

  it('the base64 HMAC-SHA256 vectors (shopify, woocommerce, typeform) are confirmed by square’s own verifier', () => {
    expect(squareConfirmed).toEqual({ shopify: true, woocommerce: true, typeform: true });
  });

  it("paddle: a header Paddle's own webhooks.isSignatureValid accepted verifies with the preset", async () => {
    expect(paddle.confirmed).toBe(true);
    const request = signedRequest(PROVIDER_BODIES.paddle, { 'Paddle-Signature': paddle.header });
    expect(await verifySignature(presetSignature('paddle', 'k')!, request, PROVIDER_SECRETS.paddle, paddle.nowMs)).toBe(true);
  });

  it('an unknown preset id gives nothing', () => {
    expect(presetSignature('no-such-provider', 'x')).toBeUndefined();
  });
});

describe('published examples', () => {
  it("slack: the example of Slack's 'Verifying requests from Slack' verifies", async () => {
    // From https://api.slack.com/authentication/verifying-requests-from-slack (the worked example:
    // signing secret, X-Slack-Request-Timestamp 1531420618, the slash-command body and its signature).
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = { 'X-Slack-Request-Timestamp': '1531420618', 'X-Slack-Signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503' };
    const config = presetSignature('slack', 'k')!;
    expect(await verifySignature(config, signedRequest(body, headers), '8f742231b10e8888abcd99yyyzzz85a5', 1531420618_000)).toBe(true);
    expect(await verifySignature(config, signedRequest(body.replace('foobar', 'foobaz'), headers), '8f742231b10e8888abcd99yyyzzz85a5', 1531420618_000)).toBe(
      false,
    );
  });

  it("github: the test values of GitHub's 'Validating webhook deliveries' verify", async () => {
    // From https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries ("Testing the
    // webhook payload validation": secret "It's a Secret to Everybody", payload "Hello, World!").
    const headers = { 'X-Hub-Signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' };
    const config = presetSignature('github', 'k')!;
    expect(await verifySignature(config, signedRequest('Hello, World!', headers), "It's a Secret to Everybody", NOW_MS)).toBe(true);
    expect(await verifySignature(config, signedRequest('Hello, World?', headers), "It's a Secret to Everybody", NOW_MS)).toBe(false);
  });

  // From Svix's "Verifying webhooks manually" (https://docs.svix.com/receiving/verifying-payloads/how-manual),
  // the same example Standard Webhooks publishes with webhook-* names.
  const EXAMPLE = { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: '1614265330', signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' };
  const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const svixNames = signedRequest('{"test": 2432232314}', { 'svix-id': EXAMPLE.id, 'svix-timestamp': EXAMPLE.timestamp, 'svix-signature': EXAMPLE.signature });
  const webhookNames = signedRequest('{"test": 2432232314}', {
    'webhook-id': EXAMPLE.id,
    'webhook-timestamp': EXAMPLE.timestamp,
    'webhook-signature': EXAMPLE.signature,
  });

  it('svix (Clerk, Resend): the Svix example, sent with svix-* names, verifies with the svix preset', async () => {
    expect(await verifySignature(presetSignature('svix', 'k')!, svixNames, EXAMPLE_SECRET, 1614265330_000)).toBe(true);
  });

  it('standard-webhooks: the same example with webhook-* names verifies with the standard-webhooks preset', async () => {
    expect(await verifySignature(presetSignature('standard-webhooks', 'k')!, webhookNames, EXAMPLE_SECRET, 1614265330_000)).toBe(true);
  });

  it('each of the two presets reads only its own header names (a Clerk delivery fails the webhook-* preset)', async () => {
    expect(await verifySignature(presetSignature('standard-webhooks', 'k')!, svixNames, EXAMPLE_SECRET, 1614265330_000)).toBe(false);
    expect(await verifySignature(presetSignature('svix', 'k')!, webhookNames, EXAMPLE_SECRET, 1614265330_000)).toBe(false);
  });
});
