import { env } from 'cloudflare:workers';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import readme from '../README.md?raw';
import { call, createProject, putSecret } from './helpers/api';

/** The JSON block that follows `<!-- example: NAME -->` in the README. */
function example(name: string): any {
  const match = new RegExp(`<!-- example: ${name} -->\\n\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README has no example ${name}`);
  return JSON.parse(match[1]);
}

describe('README examples', () => {
  it('the Stripe webhook ticket writes one record per payment, signed by the stripe library', async () => {
    const project = await createProject();
    const secret = 'whsec_readme_example';
    await putSecret(project, 'stripe', secret);
    const registered = await call('PUT', `/v1/projects/${project.service_id}/tickets/stripe-payments`, {
      token: project.owner_key,
      body: example('stripe-webhook'),
    });
    expect(registered.status).toBe(201);

    const payload = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_123', amount: 4200, currency: 'eur' } } });
    const send = async (body: string, signWith = secret) => {
      const header = await Stripe.webhooks.generateTestHeaderStringAsync({
        payload: body,
        secret: signWith,
        cryptoProvider: Stripe.createSubtleCryptoProvider(),
      });
      return call('POST', `/tp/${project.service_id}/stripe-payments`, {
        raw: body,
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
      });
    };
    expect((await send(payload)).status).toBe(200);
    expect((await send(payload)).status).toBe(200); // Stripe retries a delivery: same record
    expect((await send(payload, 'whsec_forged')).json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
    expect((await send(payload.replace('payment_intent.succeeded', 'charge.refunded'))).json).toMatchObject({ code: 'CONDITION_FAILED' });

    const rows = await env.DB.prepare('SELECT unique_id, table_name, data FROM records WHERE service_id = ?')
      .bind(project.service_id)
      .all<{ unique_id: string; table_name: string; data: string }>();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]).toMatchObject({ unique_id: 'pi_123', table_name: 'payments' });
    expect(JSON.parse(rows.results[0].data)).toEqual({ amount: 4200, currency: 'eur' });
  });
});
