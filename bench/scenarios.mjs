// What the benchmark sends: the gateway project, secrets and tickets it registers, the Stripe events
// it signs, and the scenarios (a)–(g) as request builders with a check of one answer.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

export const STRIPE_SECRET_NAME = 'stripe_webhook_secret';
/** The Secret Key the forwarding scenarios (f, h) send to the loopback destination. */
export const API_SECRET_NAME = 'bench_api_key';
const EVENT_TYPE = 'payment_intent.succeeded';
/** Distinct signed bodies per Stripe scenario; each header is made once and reused (t= stays valid 300 s). */
const DISTINCT_EVENTS = 64;
const USER_AGENT = 'svc-bench/1';

/** The Stripe config of docs/signatures.md. */
const STRIPE_SIGNATURE = {
  secretName: STRIPE_SECRET_NAME,
  header: 'Stripe-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  separator: ',',
  parts: ['t=${timestamp}', 'v1=${signature}'],
  signed: '${timestamp}.${body}',
  timestamp: '${timestamp}',
  tolerance: 300,
  secret_encoding: 'raw',
};

export const TICKETS = {
  params: {
    description: 'bench (c): params condition',
    condition: {
      params: [
        { key: 'qty', operator: '=', value: 2 },
        { key: 'sku', operator: '=', value: 'abc-123' },
      ],
    },
    actions: [],
  },
  stripe: {
    description: 'bench (d): Stripe-signed, body condition',
    condition: { method: 'POST', signature: STRIPE_SIGNATURE, body: [{ key: 'type', operator: '=', value: EVENT_TYPE }] },
    actions: [],
  },
};

export const newStripeSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

async function call(base, method, route, token, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/**
 * Creates the bench project, its Stripe secret key, the tickets of (c) and (d) and, given the loopback
 * destination, the Secret Key of (f) and (h), limited to the destination's origin, over HTTP.
 */
export async function setupGateway(base, operatorToken, stripeSecret, destination) {
  const project = await call(base, 'POST', '/v1/projects', operatorToken, { name: 'Benchmark' });
  const sid = project.service_id;
  await call(base, 'PUT', `/v1/projects/${sid}/secrets/${STRIPE_SECRET_NAME}`, project.owner_key, { value: stripeSecret });
  if (destination) {
    const { origin } = new URL(destination.apiUrl);
    await call(base, 'PUT', `/v1/projects/${sid}/secrets/${API_SECRET_NAME}`, project.owner_key, { value: destination.key, destinations: [`${origin}/`] });
  }
  for (const [ticketId, ticket] of Object.entries(TICKETS)) {
    const stored = await call(base, 'PUT', `/v1/projects/${sid}/tickets/${ticketId}`, project.owner_key, ticket);
    if (stored.count !== undefined) throw new Error(`the bench ticket ${ticketId} should have no count limit`);
  }
  return { serviceId: sid };
}

/** Stripe events of about 600 bytes, each with a Stripe-Signature header made by the stripe library. */
export async function signedStripeEvents(secret) {
  const timestamp = Math.floor(Date.now() / 1000);
  return Promise.all(
    Array.from({ length: DISTINCT_EVENTS }, async (_, i) => {
      const body = JSON.stringify({
        id: `evt_bench_${i}`,
        object: 'event',
        api_version: '2025-01-27.acacia',
        created: timestamp,
        type: EVENT_TYPE,
        livemode: false,
        pending_webhooks: 1,
        request: { id: `req_bench_${i}`, idempotency_key: randomBytes(8).toString('hex') },
        data: {
          object: {
            id: `pi_bench_${i}`,
            object: 'payment_intent',
            amount: 1000 + i,
            amount_received: 1000 + i,
            currency: 'usd',
            customer: `cus_bench_${i % 8}`,
            status: 'succeeded',
            payment_method_types: ['card'],
            metadata: { order_id: `order_${i}` },
          },
        },
      });
      const header = await Stripe.webhooks.generateTestHeaderStringAsync({ payload: body, secret, timestamp });
      return { body, header };
    }),
  );
}

const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
/** What a browser page sends to a JSON API (about 200 bytes), the same for (f), (g) and (h). */
export const apiData = (i) => ({
  model: 'bench-1',
  input: `Summarize order ${i} in one sentence for the customer.`,
  max_tokens: 64,
  temperature: 0.2,
  user: `visitor-${i % 32}`,
});

/** The body of a forwardRequest to the destination with the key in a header (queued when `queue` is given). */
export const forwardDispatch = (destination, data, queue) => ({
  url: destination.apiUrl,
  method: 'POST',
  secretName: API_SECRET_NAME,
  headers: { authorization: 'Bearer $CLIENT_SECRET' },
  data,
  ...(queue === undefined ? {} : { queue }),
});

/**
 * The Rate Limiting bindings a gateway request is counted in (bench/gateway-entry.ts): miniflare's simulated
 * binding, as shipped (c, d, f), or the bench's in-isolate stand-in, the gateway's own cost (ci, di, fi).
 * The two values are as long, so both requests are the same size.
 */
const SIMULATED = { 'x-bench-rate-limit': 'binding' };
const IN_ISOLATE = { 'x-bench-rate-limit': 'isolate' };

const isReceipt = (body) => typeof body?.tkid === 'string' && /^[0-9a-f]{64}$/.test(body?.hash ?? '');

/**
 * The scenarios (h, queued latency, is measured by queue-latency.mjs). Each has `prepare()` (=> nextRequest(i)), the `worker` it targets (its `base`
 * URL) and `accepts(body)`, checked on one answer before it is measured.
 */
export function scenarios({ gateway: gatewayWorker, baseline: baselineWorker, serviceId, stripeSecret, destination }) {
  const gateway = { worker: gatewayWorker, base: gatewayWorker.url };
  const baseline = { worker: baselineWorker, base: baselineWorker.url };
  const stripePost =
    (path, extra = {}) =>
    async () => {
      const events = await signedStripeEvents(stripeSecret);
      return (i) => {
        const { body, header } = events[i % events.length];
        return { method: 'POST', path, body, headers: { 'content-type': 'application/json', 'stripe-signature': header, 'user-agent': USER_AGENT, ...extra } };
      };
    };
  const get =
    (path, extra = {}) =>
    async () =>
    () => ({ method: 'GET', path, headers: { 'user-agent': USER_AGENT, ...extra } });
  const postJson =
    (path, bodyOf, extra = {}) =>
    async () =>
    (i) => ({
      method: 'POST',
      path,
      body: JSON.stringify(bodyOf(i)),
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...extra },
    });
  const consumeParams = `/tg/${serviceId}/params?qty=2&sku=abc-123`;
  const forward = `/v1/projects/${serviceId}/forward`;
  const forwardBody = (i) => forwardDispatch(destination, apiData(i));
  const authorizedAnswer = (b) => json(b)?.authorized === true;
  return [
    { id: 'a', name: 'bare route GET /v1/health', ...gateway, prepare: get('/v1/health'), accepts: (b) => json(b)?.ok === true },
    { id: 'b', name: 'bare TicketDO round trip', ...gateway, prepare: get('/v1/bench/ticket-do'), accepts: (b) => json(b)?.exists === false },
    { id: 'c', name: 'consume, params condition (GET /tg)', ...gateway, prepare: get(consumeParams, SIMULATED), accepts: (b) => isReceipt(json(b)) },
    { id: 'ci', name: '(c), rate limits counted in the isolate', ...gateway, prepare: get(consumeParams, IN_ISOLATE), accepts: (b) => isReceipt(json(b)) },
    {
      id: 'd',
      name: 'consume, Stripe-signed + body condition (POST /tp)',
      ...gateway,
      prepare: stripePost(`/tp/${serviceId}/stripe`, SIMULATED),
      accepts: (b) => isReceipt(json(b)),
    },
    {
      id: 'di',
      name: '(d), rate limits counted in the isolate',
      ...gateway,
      prepare: stripePost(`/tp/${serviceId}/stripe`, IN_ISOLATE),
      accepts: (b) => isReceipt(json(b)),
    },
    {
      id: 'e',
      name: 'baseline: hand-written Stripe verify + DO counter',
      ...baseline,
      prepare: stripePost('/webhooks/stripe'),
      accepts: (b) => json(b)?.received === true,
    },
    ...(destination
      ? [
          {
            id: 'f',
            name: 'forwardRequest, key in a header (POST /forward)',
            ...gateway,
            prepare: postJson(forward, forwardBody, SIMULATED),
            accepts: authorizedAnswer,
          },
          {
            id: 'fi',
            name: '(f), rate limit counted in the isolate',
            ...gateway,
            prepare: postJson(forward, forwardBody, IN_ISOLATE),
            accepts: authorizedAnswer,
          },
          { id: 'g', name: 'baseline: hand-written proxy adding the key', ...baseline, prepare: postJson('/api/proxy', apiData), accepts: authorizedAnswer },
        ]
      : []),
  ];
}
