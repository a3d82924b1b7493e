/**
 * The operations of issue 24 item 1, each driven through the real Worker exactly as a client would: one
 * project per scenario, set up through the owner routes, then `operations` requests whose answers are
 * checked (a scenario that stopped doing what it names fails instead of measuring something else).
 */
import { expect } from 'vitest';
import { presetSignature } from '../../schemas/signature-presets';
import { generatedText } from '../forward/generated-text';
import { call, createProject, mintUser, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { finalize, forward, origin, poll } from '../forward/support';
import { forwardedRequests, loggedConsumptions } from './listed';
import { WARM_UP_OPERATIONS } from './measure';
import { stripeDelivery, stripeEvent } from './stripe-event';

export interface Scenario {
  key: string;
  title: string;
  operations: number;
  /** Requests in flight at once. */
  concurrency: number;
  setup(): Promise<TestProject>;
  /** The i-th operation; checks its answer. */
  run(project: TestProject, i: number): Promise<void>;
  /** Resolves once every operation's own work is done (a queued request settled). */
  settle?(project: TestProject, operations: number): Promise<void>;
  /** How many operations the owner's listing shows (read through the real route). */
  listed(project: TestProject): Promise<number>;
}

const STRIPE_SECRET = 'whsec_capacity_5f1d2c3b4a';
const API_KEY = 'sk_live_capacity_0123456789abcdef';
/** The forwarding caller: a visitor, known by address and user agent. */
const visitor = { headers: { 'cf-connecting-ip': '198.51.100.24', 'user-agent': 'Mozilla/5.0 (capacity test)' } };
/**
 * The direct scenario's warm-up forwards as another visitor: the drain runs its compaction early, inside the
 * isolate's 30 s window in which the measured requests tell the object nothing more (dispatch.ts, noticeDue),
 * which real time never does (a compaction runs 60 s after its notice).
 */
const warmUpVisitor = { headers: { 'cf-connecting-ip': '198.51.100.25', 'user-agent': 'Mozilla/5.0 (capacity test, warm-up)' } };

/** A Stripe-preset ticket with one req to the loopback destination (the customer's API). */
async function stripeProject(): Promise<TestProject> {
  const project = await createProject();
  await putSecret(project, 'stripe', STRIPE_SECRET);
  await registerTicket(project, 'stripe-payments', {
    description: 'Stripe payments to the order service',
    count: null,
    condition: {
      method: 'POST',
      signature: presetSignature('stripe', 'stripe'),
      body: [{ key: 'type', operator: '=', value: 'payment_intent.succeeded' }],
    },
    actions: [
      {
        act: 'req',
        exe: {
          url: `${origin}/echo/orders/paid`,
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          data: { payment_intent: '${body[data][object][id]}', amount: '${body[data][object][amount]}', order: '${body[data][object][metadata][order_id]}' },
        },
      },
    ],
  });
  return project;
}

const consumeStripe = async (project: TestProject, i: number, path: string, secret = STRIPE_SECRET, token?: string) => {
  const payload = stripeEvent(i);
  return call('POST', path, { raw: payload, headers: await stripeDelivery(payload, secret), token });
};

/** Signed-in users of a project (the signed-in scenario), minted through the dev route. */
const users = new Map<string, { user_id: string; id_token: string }[]>();
const SIGNED_IN_USERS = 8;

/** About 1 KB of JSON: an order line list as a browser client would send it. */
const kilobyteRequest = (i: number) => ({
  order: 100000 + i,
  currency: 'EUR',
  lines: Array.from({ length: 12 }, (_, n) => ({
    sku: `SKU-${(i * 12 + n).toString().padStart(6, '0')}`,
    quantity: 1 + (n % 3),
    note: 'gift wrap, no invoice in the box',
  })),
});

async function forwardProject(): Promise<TestProject> {
  const project = await createProject();
  await putSecret(project, 'orders_api', API_KEY, { destinations: [`${origin}/`] });
  return project;
}

/** The forwarded request: 1 KB up, 1.4 KB (1,400 bytes) back. */
const orderRequest = (i: number, extra: Record<string, unknown> = {}) => ({
  url: `${origin}/sized/1400`,
  method: 'POST',
  secretName: 'orders_api',
  headers: { Authorization: 'Bearer $CLIENT_SECRET', 'Content-Type': 'application/json' },
  data: kilobyteRequest(i),
  ...extra,
});

/** 100 KB of streamed text (test/forward/generated-text.ts: 48 bytes a line). */
const STREAM_LINES = Math.ceil(100_000 / new TextEncoder().encode(generatedText(1)).byteLength);
const streamUrl = (i: number) => `${origin}/generated/capacity-${crypto.randomUUID()}-${i}?repeat=${STREAM_LINES}&piece=4096`;

/** Polls until the request settled (at most 30 s); answers its envelope. */
async function settled(project: TestProject, address: { id: string; url: string; method: string }) {
  const until = Date.now() + 30_000;
  for (;;) {
    const res = await poll(project, address, visitor);
    expect(res.status).toBe(200);
    if (res.json.status === 'resolved' || res.json.status === 'failed') return res.json;
    if (Date.now() > until) throw new Error(`request did not settle: ${res.text.slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function streamed(project: TestProject, i: number): Promise<{ id: string; url: string; method: string }> {
  const url = streamUrl(i);
  const res = await forward(project, { url, method: 'GET', stream: true }, visitor);
  expect(res.status).toBe(200);
  const address = { id: res.json.id as string, url, method: 'GET' };
  const envelope = await settled(project, address);
  expect(envelope).toMatchObject({ status: 'resolved', status_code: 200 });
  return address;
}

const queuedAddresses = new Map<string, { id: string; url: string; method: string }>();

export const SCENARIOS: Scenario[] = [
  {
    key: 'a_consume_stripe_req',
    title: 'consumption: 2.9 KB Stripe event, Stripe signature, one req',
    operations: 200,
    concurrency: 8,
    setup: stripeProject,
    listed: (project) => loggedConsumptions(project, 'stripe-payments'),
    run: async (project, i) => {
      const res = await consumeStripe(project, i, `/tp/${project.service_id}/stripe-payments`);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toHaveProperty('tkid');
    },
  },
  {
    key: 'b_dry_run',
    title: 'dry run of the same (/publ/check)',
    operations: 200,
    concurrency: 8,
    setup: stripeProject,
    listed: (project) => loggedConsumptions(project, 'stripe-payments'),
    run: async (project, i) => {
      const res = await consumeStripe(project, i, `/publ/check/${project.service_id}/${project.owner_id}/stripe-payments`);
      expect(res.status, res.text).toBe(200);
    },
  },
  {
    key: 'c_failed_signature',
    title: 'consumption refused: failed Stripe signature',
    operations: 200,
    concurrency: 8,
    setup: stripeProject,
    listed: (project) => loggedConsumptions(project, 'stripe-payments'),
    run: async (project, i) => {
      const res = await consumeStripe(project, i, `/tp/${project.service_id}/stripe-payments`, 'whsec_not_the_endpoint_secret');
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
    },
  },
  {
    key: 'h_signed_in_consumption',
    title: 'signed-in consumption (/tpa): the same Stripe event and req, 8 users in turn',
    operations: 200,
    concurrency: 8,
    setup: async () => {
      const project = await stripeProject();
      const minted = [];
      for (let u = 0; u < SIGNED_IN_USERS; u++) minted.push(await mintUser(project, { email: `buyer-${u}@example.com` }));
      users.set(project.service_id, minted);
      return project;
    },
    listed: (project) => loggedConsumptions(project, 'stripe-payments'),
    run: async (project, i) => {
      const user = users.get(project.service_id)![i % SIGNED_IN_USERS];
      const res = await consumeStripe(project, i, `/tpa/${project.service_id}/stripe-payments`, STRIPE_SECRET, user.id_token);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toHaveProperty('tkid');
    },
  },
  {
    key: 'd_forward_direct',
    title: 'forwarded request, direct: 1 KB request, 1.4 KB answer',
    operations: 200,
    concurrency: 8,
    setup: forwardProject,
    listed: forwardedRequests,
    run: async (project, i) => {
      const res = await forward(project, orderRequest(i), i < WARM_UP_OPERATIONS ? warmUpVisitor : visitor);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.headers.get('x-svc-status-code')).toBe('200');
      expect(res.text.length).toBe(1400);
    },
  },
  {
    key: 'e_forward_queued',
    title: 'forwarded request, queued: 1 KB request, 1.4 KB answer',
    operations: 200,
    concurrency: 8,
    setup: forwardProject,
    listed: forwardedRequests,
    run: async (project, i) => {
      const request = orderRequest(i, { queue: 'orders' });
      const res = await forward(project, request, visitor);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.json).toMatchObject({ status: 'pending', queue_name: 'orders' });
      queuedAddresses.set(`${project.service_id}/${i}`, { id: res.json.id, url: request.url, method: 'POST' });
    },
    // One queue runs in order: once every request is settled the queue has nothing left to run.
    settle: async (project, operations) => {
      for (let i = 0; i < operations; i++) {
        const envelope = await settled(project, queuedAddresses.get(`${project.service_id}/${i}`)!);
        expect(envelope, JSON.stringify(envelope.error ?? null)).toMatchObject({ status: 'resolved', status_code: 200 });
      }
    },
  },
  {
    key: 'f_stream_finalized',
    title: 'forwarded request, streamed 100 KB, finalized with the text',
    operations: 20,
    concurrency: 4,
    setup: forwardProject,
    listed: forwardedRequests,
    run: async (project, i) => {
      const address = await streamed(project, i);
      const res = await finalize(project, { ...address, data: generatedText(STREAM_LINES) }, visitor);
      expect(res.json).toEqual({ finalized: true, message: 'Finalized.' });
    },
  },
  {
    key: 'g_stream_not_finalized',
    title: 'forwarded request, streamed 100 KB, not finalized',
    operations: 20,
    concurrency: 4,
    setup: forwardProject,
    listed: forwardedRequests,
    run: async (project, i) => {
      await streamed(project, i);
    },
  },
];
