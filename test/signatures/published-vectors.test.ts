/**
 * Presets checked against a test vector the provider itself publishes (issue 27 item 1, "the provider's
 * published example"): that exact payload, that exact signature, with the provider's secret, consumed
 * at a ticket registered from the preset alone. Providers without one (searched, see
 * provider-signers.ts) keep only the same-formula deliveries of presets.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';

/**
 * WooCommerce's own unit test of WC_Webhook::generate_signature: woocommerce/woocommerce,
 * plugins/woocommerce/tests/legacy/unit-tests/webhooks/crud.php at commit
 * 6147c5e685a97beb873ac2548044cf04d2a48a66, test_generate_signature:
 *   $object = new WC_Webhook();
 *   $this->assertEquals( 'GBDo00G55h6IiV+6CxqivQPLbI//KzaOZm747971tPs=', $object->generate_signature( 'secret' ) );
 * generate_signature( $payload ) is base64_encode( hash_hmac( 'sha256', $payload, $this->get_secret(), true ) )
 * (plugins/woocommerce/includes/class-wc-webhook.php), sent as X-WC-Webhook-Signature. So the payload is
 * the text `secret` and the webhook's secret is the one a new WC_Webhook has: none, the empty string.
 *
 * A Secret Key holds at least one character, so the test stores the one NUL byte: HMAC pads a key
 * shorter than the hash's block with zero bytes (RFC 2104 section 2), so the empty key and the key
 * "\0" are the same HMAC key, and the signature below is WooCommerce's, unchanged.
 */
const WOOCOMMERCE = {
  payload: 'secret',
  secretAsStored: '\u0000',
  signature: 'GBDo00G55h6IiV+6CxqivQPLbI//KzaOZm747971tPs=',
};

let project: TestProject;
const post = (ticket: string, body: string, headers: Record<string, string>) =>
  call('POST', `/tp/${project.service_id}/${ticket}`, { raw: body, headers: { 'content-type': 'text/plain', ...headers } });

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'woocommerce_unset', WOOCOMMERCE.secretAsStored);
  await putSecret(project, 'woocommerce_other', 'secret');
  await registerTicket(project, 'woo-vector', { count: 5, condition: { preset: { id: 'woocommerce', secretName: 'woocommerce_unset' } }, actions: [] });
  await registerTicket(project, 'woo-other-key', { count: 5, condition: { preset: { id: 'woocommerce', secretName: 'woocommerce_other' } }, actions: [] });
});

describe("presets verify the provider's own published test vector", () => {
  it("woocommerce: WooCommerce's test_generate_signature vector (payload `secret`, no secret) is consumed at a ticket registered from the preset", async () => {
    const res = await post('woo-vector', WOOCOMMERCE.payload, { 'X-WC-Webhook-Signature': WOOCOMMERCE.signature });
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
  });

  it('woocommerce: the vector with its payload changed, or at a ticket whose Secret Key holds another secret, fails with CONDITION_FAILED { field: signature }', async () => {
    const changed = await post('woo-vector', 'secreT', { 'X-WC-Webhook-Signature': WOOCOMMERCE.signature });
    const otherKey = await post('woo-other-key', WOOCOMMERCE.payload, { 'X-WC-Webhook-Signature': WOOCOMMERCE.signature });
    for (const res of [changed, otherKey]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
    }
  });
});
