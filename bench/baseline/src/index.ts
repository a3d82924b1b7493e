/**
 * The hand-written baselines of `npm run bench`, written the way a developer would without the gateway:
 * (e) a Stripe webhook handler that verifies the Stripe-Signature header with crypto.subtle, checks one
 * field of the event, and counts the event in a Durable Object; (g) a route that adds an API key from
 * `env` to the browser's JSON and `fetch`es the API; (s2, s3) the streaming baselines (streaming.ts).
 */
import { DurableObject } from 'cloudflare:workers';
import { Hono } from 'hono';
import type { Env } from './env';
import { streaming } from './streaming';

export { Broadcaster } from './broadcaster';

const TOLERANCE_SECONDS = 300;

export class Counter extends DurableObject<Env> {
  async increment(): Promise<number> {
    const count = ((await this.ctx.storage.get<number>('count')) ?? 0) + 1;
    await this.ctx.storage.put('count', count);
    return count;
  }
}

const app = new Hono<{ Bindings: Env }>();

app.get('/health', (c) => c.json({ ok: true }));

app.post('/webhooks/stripe', async (c) => {
  const payload = await c.req.text();
  const header = c.req.header('stripe-signature') ?? '';
  if (!(await verifyStripeSignature(payload, header, c.env.STRIPE_WEBHOOK_SECRET))) {
    return c.json({ error: 'invalid signature' }, 400);
  }
  let event: { type?: string };
  try {
    event = JSON.parse(payload);
  } catch {
    return c.json({ error: 'invalid JSON' }, 400);
  }
  if (event.type !== 'payment_intent.succeeded') return c.json({ error: 'ignored event type' }, 400);
  const counter = c.env.COUNTER.get(c.env.COUNTER.idFromName('payment_intent.succeeded'));
  const count = await counter.increment();
  return c.json({ received: true, count });
});

app.post('/api/proxy', async (c) => {
  const upstream = await fetch(c.env.API_URL, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.env.API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(await c.req.json()),
  });
  return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': upstream.headers.get('content-type') ?? 'application/json' } });
});

app.route('/', streaming);

async function verifyStripeSignature(payload: string, header: string, secret: string): Promise<boolean> {
  let timestamp = '';
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') timestamp = value;
    if (key === 'v1') signatures.push(value);
  }
  if (!timestamp || signatures.length === 0) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;

  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${payload}`));
  const expected = [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return signatures.some((signature) => timingSafeEqual(signature, expected));
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export default app;
