import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';

// A Stripe webhook end to end: the signature is made by the stripe library, checked over the raw
// bytes the route received, then the body condition runs.
const SECRET = 'whsec_e2e_51c0ffee';
const cryptoProvider = Stripe.createSubtleCryptoProvider();
const stripeHeader = (payload: string, secret = SECRET, timestamp = Math.floor(Date.now() / 1000)) =>
  Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp, cryptoProvider });

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'stripe', SECRET);
  await registerTicket(project, 'stripe-hook', {
    count: 10,
    condition: {
      method: 'POST',
      signature: {
        secretName: 'stripe',
        header: 'Stripe-Signature',
        separator: ',',
        parts: ['t=${timestamp}', 'v1=${signature}'],
        signed: '${timestamp}.${body}',
        timestamp: '${timestamp}',
      },
      body: [{ key: 'type', operator: '=', value: 'payment_intent.succeeded' }],
    },
    actions: [],
  });
});

const send = (payload: string, header: string) =>
  call('POST', `/tp/${project.service_id}/stripe-hook`, { raw: payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
const remaining = async () =>
  (await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=stripe-hook`, { token: project.owner_key })).json.list[0].count;

describe('a Stripe-signed consumption', () => {
  const payload = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

  it('passes with a signature made by the stripe library and takes one count', async () => {
    const res = await send(payload, await stripeHeader(payload));
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
    expect(await remaining()).toBe(9);
  });

  it('is verified over the raw bytes: whitespace the JSON parser would ignore still counts', async () => {
    const spaced = payload.replace(':', ' : ');
    const res = await send(spaced, await stripeHeader(payload));
    expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'signature' } });
  });

  it('fails a tampered body, a stale timestamp or a wrong secret with CONDITION_FAILED { field: signature } and uses no count', async () => {
    const before = await remaining();
    const tampered = await send(payload.replace('succeeded', 'failed'), await stripeHeader(payload));
    const stale = await send(payload, await stripeHeader(payload, SECRET, Math.floor(Date.now() / 1000) - 3600));
    const wrong = await send(payload, await stripeHeader(payload, 'whsec_not_ours'));
    const garbage = await send(payload, 't=1,v1=zz-not-hex');
    for (const res of [tampered, stale, wrong, garbage]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'signature' } });
    }
    expect(await remaining()).toBe(before);
  });

  it('a signature of the wrong length or encoding, or a header full of control characters, fails as CONDITION_FAILED, never a 500, and uses no count', async () => {
    const before = await remaining();
    const valid = await stripeHeader(payload);
    const v1 = /v1=([0-9a-f]+)/.exec(valid)![1];
    const shortSig = await send(payload, valid.replace(v1, v1.slice(0, 32)));
    const longSig = await send(payload, valid.replace(v1, `${v1}00`));
    const base64Sig = await send(payload, valid.replace(v1, Buffer.from(v1, 'hex').toString('base64')));
    const controls = await send(payload, `t=\u0001\u0007,v1=\u007f${v1}\u001b`);
    for (const res of [shortSig, longSig, base64Sig, controls]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'signature' } });
    }
    expect(await remaining()).toBe(before);
  });

  it('checks the signature before the body condition', async () => {
    const other = JSON.stringify({ id: 'evt_2', type: 'charge.refunded' });
    const unsigned = await send(other, 'nope');
    expect(unsigned.json.detail).toEqual({ field: 'signature' });
    const signed = await send(other, await stripeHeader(other));
    expect(signed.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'body', keys: ['type'] } });
  });
});
