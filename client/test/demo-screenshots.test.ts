import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import type { Browser, Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { SCREENS_DIR, screenshot, signIn } from './helpers/dashboard-page.js';
import { json, startScriptedServer, type ScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The screenshots of docs/images/ (README.md, docs/dashboard.md), taken from a demo project an owner
// could run: a Stripe ticket and a GitHub ticket with the signature presets, sent events signed by
// Stripe's and GitHub's own libraries, with a realistic mix of traffic made now, over this run's
// seconds (metrics are never inserted: the charts show the traffic as it happened, in the 1 h range).
// Run by the normal suite (so the pages it shows keep working); `npm run screenshots` also copies
// the images into docs/images/.
const DOCS_IMAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'images');
const STRIPE_SECRET = 'whsec_5c1f0e9a7b3d4e2f8a6b0c9d1e7f3a2b';
const GITHUB_SECRET = 'gh-hook-9f2c7e1b5a';
const stripeCrypto = Stripe.createSubtleCryptoProvider();

let worker: ProjectOnWorker;
let browser: Browser;
let page: Page;
let fulfilment: ScriptedServer;
let deploys: ScriptedServer;
let llm: ScriptedServer;
let ops: ScriptedServer;
/** Destination answers the demo scripts: each server fails the requests whose number is listed. */
const failing = { deploys: new Set([11]) };
/** Orders the warehouse API refuses every time it is asked: their deliveries end as dead letters after the retry schedule. */
const UNDELIVERABLE = /pi_3Q(13|29)Acme/;

beforeAll(async () => {
  [browser, worker, fulfilment, deploys, llm, ops] = await Promise.all([
    launchChromium(),
    createTestProject(),
    startScriptedServer(),
    startScriptedServer(),
    startScriptedServer(),
    startScriptedServer(),
  ]);
  // The on-call team's alert receiver (a Standard Webhooks endpoint).
  ops.handle((_req, res) => json(res, 204, {}));
  // The shop's product assistant calls a chat completions API through forwarding; the API is rate limited now and then.
  llm.handle((req, res) =>
    llm.requests.length % 5 === 4
      ? json(res, 429, { error: { type: 'rate_limit_exceeded', message: 'Rate limit reached for requests' } })
      : json(res, 200, {
          id: `chatcmpl-${llm.requests.length}`,
          object: 'chat.completion',
          model: 'gpt-4o-mini',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: /boots|sizes/.test(req.body) ? 'The winter boots run true to size.' : 'Yes, we ship to Norway in 3 to 5 days.',
              },
            },
          ],
          usage: { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 },
        }),
  );
  fulfilment.handle((req, res) =>
    UNDELIVERABLE.test(req.body)
      ? json(res, 500, { error: 'order not found in the warehouse catalogue' })
      : json(res, 201, { order: /pi_[A-Za-z0-9]+/.exec(req.body)?.[0] ?? null, queued: true }),
  );
  deploys.handle((_req, res) =>
    failing.deploys.has(deploys.requests.length) ? json(res, 502, { error: 'runner pool exhausted' }) : json(res, 202, { deploy: 'queued' }),
  );
  expect((await worker.ownerCall('PATCH', '/settings', { name: 'Acme Store' })).status).toBe(200);
  await worker.putSecretKey('STRIPE_WEBHOOK_SECRET', { value: STRIPE_SECRET });
  await worker.putSecretKey('GITHUB_WEBHOOK_SECRET', { value: GITHUB_SECRET });
  await worker.putSecretKey('OPENAI_API_KEY', { value: 'sk-proj-demo-4b1f9e0c2d7a' });
  const rules = [
    {
      kind: 'failure_rate',
      name: 'Stripe payments failing',
      ticket_id: 'stripe-payments',
      threshold_percent: 10,
      min_volume: 10,
      window_minutes: 15,
      channels: { email: ['oncall@acme.example'], webhook: { url: `${ops.url}/alerts` } },
    },
    { kind: 'dead_letter', name: 'An order did not reach the warehouse', window_minutes: 15, channels: { email: ['oncall@acme.example'] } },
    { kind: 'p95_latency', name: 'Slow deliveries', p95_ms: 2_000, window_minutes: 10, channels: { webhook: { url: `${ops.url}/alerts` } } },
  ];
  await worker.registerTicket('stripe-payments', {
    description: 'Stripe payment events of the Acme web shop: a paid order is sent to the warehouse for packing.',
    condition: { method: 'POST', preset: { id: 'stripe', secretName: 'STRIPE_WEBHOOK_SECRET' } },
    // Stripe is answered at once; the warehouse is told in the background, again after 1 s and 3 s if it fails.
    retry_schedule: { delays: ['1s', '2s'], attempts: 3 },
    actions: [
      { act: 'resp', exe: { status: 200, body: { received: true }, resume: '0m' } },
      {
        act: 'req',
        exe: {
          url: `${fulfilment.url}/v1/orders/paid`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          data: { payment_intent: '${body[data][object][id]}', amount: '${body[data][object][amount]}', currency: '${body[data][object][currency]}' },
        },
      },
    ],
  });
  await worker.registerTicket('github-deploys', {
    description: 'GitHub pushes to acme/storefront: each push to main starts a deploy of the storefront.',
    condition: { method: 'POST', preset: { id: 'github', secretName: 'GITHUB_WEBHOOK_SECRET' } },
    actions: [
      {
        act: 'req',
        exe: {
          url: `${deploys.url}/deploys`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          data: { ref: '${body[ref]}', commit: '${body[after]}' },
        },
      },
    ],
  });
  const settings: [string, unknown][] = [
    [
      '/mail-templates/order-shipped',
      {
        subject: 'Your Acme order ${order_id} is on its way',
        html: '<p>Hi ${name},</p><p>Your order ${order_id} left our warehouse today. Track it at ${tracking_url}.</p><p>The Acme team</p>',
        text: 'Hi ${name},\n\nYour order ${order_id} left our warehouse today. Track it at ${tracking_url}.\n\nThe Acme team',
      },
    ],
    [
      '/mail-templates/payment-failed',
      {
        subject: 'We could not take the payment for order ${order_id}',
        html: '<p>Hi ${name}, your card was declined. Update it here: ${update_url}</p>',
        text: 'Hi ${name}, your card was declined. Update it here: ${update_url}',
      },
    ],
    [
      '/newsletters/public/winter-sale',
      { subject: 'Winter sale: 20 % off boots until Sunday', html: '<p>Our winter sale starts today.</p>', text: 'Our winter sale starts today.' },
    ],
    [
      '/newsletters/authorized/new-in-store',
      { subject: 'New in store this week', html: '<p>Ten new arrivals for members.</p>', text: 'Ten new arrivals for members.' },
    ],
  ];
  for (const [at, body] of settings) expect([200, 201]).toContain((await worker.ownerCall('PUT', at, body)).status);
  for (const email of ['maria.lopez@example.com', 'kofi@example.org', 'li.wei@example.net'])
    expect((await worker.ownerCall('PUT', `/subscribers/public/${email}`, {})).status).toBe(200);
  for (const rule of rules) expect((await worker.ownerCall('POST', '/alert-rules', rule)).status).toBe(200);
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await signIn(page, worker.url, worker.project.owner_key);
});

afterAll(async () => {
  await Promise.all([browser?.close(), fulfilment?.close(), deploys?.close(), llm?.close(), ops?.close()]);
});

/** A shopper's question to the product assistant, forwarded from the shop's page with the API key filled in by the service. */
async function askAssistant(question: string): Promise<number> {
  const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36' },
    body: JSON.stringify({
      url: `${llm.url}/v1/chat/completions`,
      method: 'POST',
      secretName: 'OPENAI_API_KEY',
      headers: { authorization: 'Bearer $CLIENT_SECRET', 'content-type': 'application/json' },
      data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] },
    }),
  });
  await res.arrayBuffer();
  return res.status;
}

const consumeUrl = (ticketId: string) => `${worker.url}/tp/${worker.project.service_id}/${ticketId}`;

/** A Stripe event as Stripe sends it, signed by the stripe library (with a wrong secret when `forged`). */
async function sendStripe(n: number, forged: boolean): Promise<number> {
  const payload = JSON.stringify({
    id: `evt_3Q${(1000 + n).toString(36)}Demo${n}`,
    object: 'event',
    api_version: '2024-06-20',
    created: Math.floor(Date.now() / 1000),
    type: 'payment_intent.succeeded',
    livemode: false,
    data: {
      object: { id: `pi_3Q${n}Acme${(7000 + n).toString(36)}`, object: 'payment_intent', amount: 1200 + 350 * (n % 9), currency: 'eur', status: 'succeeded' },
    },
  });
  const header = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: forged ? 'whsec_an_old_rotated_secret' : STRIPE_SECRET,
    cryptoProvider: stripeCrypto,
  });
  const res = await fetch(consumeUrl('stripe-payments'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
    body: payload,
  });
  await res.arrayBuffer();
  return res.status;
}

/** A GitHub push event as GitHub sends it, signed by @octokit/webhooks-methods (with a wrong secret when `forged`). */
async function sendGithub(n: number, forged: boolean): Promise<number> {
  const payload = JSON.stringify({
    ref: 'refs/heads/main',
    before: (0xa1b2c3 + n - 1).toString(16).padStart(40, '0'),
    after: (0xa1b2c3 + n).toString(16).padStart(40, '0'),
    repository: { full_name: 'acme/storefront', default_branch: 'main' },
    pusher: { name: ['maria', 'dev-kofi', 'li-wei'][n % 3] },
    head_commit: { message: ['Fix basket rounding', 'Bump checkout SDK', 'Add gift-card field', 'Update copy on delivery page'][n % 4] },
  });
  const signature = await sign(forged ? 'not-the-hook-secret' : GITHUB_SECRET, payload);
  const res = await fetch(consumeUrl('github-deploys'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': signature,
      'x-github-event': 'push',
      'x-github-delivery': `7c3e${n.toString(16).padStart(4, '0')}-9d1a-11ef-8d2b-acme${n}`,
      'user-agent': 'GitHub-Hookshot/5f1b2c3',
    },
    body: payload,
  });
  await res.arrayBuffer();
  return res.status;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a screenshot goes: always the run's screens folder; with `npm run screenshots` also docs/images/. */
async function keep(name: string) {
  if (!process.env.DOCS_IMAGES) return;
  await mkdir(DOCS_IMAGES, { recursive: true });
  await copyFile(path.join(SCREENS_DIR, `${name}.png`), path.join(DOCS_IMAGES, `${name}.png`));
}

/** The page from its top to the bottom of `selector` (the charts and wiring, not the whole editor below them). */
async function screenshotDown(name: string, selector: string) {
  const box = await page.locator(selector).boundingBox();
  await mkdir(SCREENS_DIR, { recursive: true });
  await page.screenshot({
    path: path.join(SCREENS_DIR, `${name}.png`),
    clip: { x: 0, y: 0, width: 1280, height: Math.ceil(box!.y + box!.height + 16) },
    fullPage: true,
  });
}

describe('the demo project', () => {
  it('traffic of a Stripe and a GitHub ticket, signed by their own libraries, is charted and shown on each page', { timeout: 240_000 }, async () => {
    // Bursts over the run's seconds: mostly good deliveries, some signed with a rotated secret, a few refused by the destination.
    const statuses = { stripe: [] as number[], github: [] as number[] };
    let s = 0;
    let g = 0;
    for (let burst = 0; burst < 6; burst++) {
      for (let i = 0; i < 7; i++, s++) statuses.stripe.push(await sendStripe(s, s % 13 === 5));
      for (let i = 0; i < 4; i++, g++) statuses.github.push(await sendGithub(g, g % 11 === 8));
      await pause(2_500);
    }
    const stripeOk = statuses.stripe.filter((status) => status === 200).length;
    const githubOk = statuses.github.filter((status) => status === 200).length;
    expect(stripeOk).toBeGreaterThan(statuses.stripe.length / 2);
    expect(stripeOk).toBeLessThan(statuses.stripe.length);
    expect(githubOk).toBeLessThan(statuses.github.length);

    // The Stripe ticket's page: its charts once the points have reached the metrics (about 30 s).
    await page.goto(`${worker.url}/#/tickets/stripe-payments/edit`);
    await page.click('#metrics button[data-range="1h"]');
    await expect
      .poll(
        async () => {
          await page.click('#metrics-refresh');
          return JSON.parse((await page.getAttribute('#chart-counts', 'data-values')) ?? '{}').consumptions?.sum ?? 0;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(statuses.stripe.length);
    await page.waitForSelector('#wiring [data-copy=tp]');
    await screenshotDown('dashboard-ticket', '#wiring');
    await keep('dashboard-ticket');
    await screenshot(page, 'dashboard-editor');
    await keep('dashboard-editor');
    await page.click('.modes button:has-text("JSON mode")');
    await page.waitForSelector('#definition-json');
    await screenshot(page, 'dashboard-editor-json');
    await keep('dashboard-editor-json');

    await page.goto(`${worker.url}/#/tickets`);
    await page.reload();
    // The list first, then every ticket's sparkline read (a cell shows … while its metrics are read).
    await expect.poll(() => page.locator('td.rate .traffic').count()).toBe(2);
    await expect.poll(() => page.locator('td.rate', { hasText: '…' }).count()).toBe(0);
    await expect.poll(() => page.locator('td.rate .totals', { hasText: 'no consumptions' }).count()).toBe(0);
    await screenshot(page, 'dashboard-tickets');
    await keep('dashboard-tickets');

    // The two undeliverable orders end as dead letters after their three attempts; the minute's cron then opens
    // the incidents of the failure rate and dead letter rules.
    await expect
      .poll(async () => (await worker.ownerCall('GET', '/tickets/stripe-payments/dead-letters')).json.list.length, { timeout: 30_000, interval: 500 })
      .toBe(2);
    await expect
      .poll(
        async () => {
          await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
          return (await worker.ownerCall('GET', '/incidents')).json.list.map((incident: { rule_name?: string; kind: string }) => incident.kind).sort();
        },
        { timeout: 40_000, interval: 2_000 },
      )
      .toEqual(['dead_letter', 'failure_rate']);

    await page.goto(`${worker.url}/#/project`);
    await page.click('#metrics button[data-range="1h"]');
    await expect
      .poll(async () => JSON.parse((await page.getAttribute('#chart-counts', 'data-values')) ?? '{}').consumptions?.sum ?? 0)
      .toBe(statuses.stripe.length + statuses.github.length);
    await expect.poll(() => page.locator('.incident').count()).toBe(2);
    await screenshot(page, 'dashboard-project');
    await keep('dashboard-project');
    await page.locator('#alerts').screenshot({ path: path.join(SCREENS_DIR, 'dashboard-alerts.png') });
    await keep('dashboard-alerts');

    await page.goto(`${worker.url}/#/tickets/stripe-payments/logs`);
    await expect.poll(() => page.locator('.ticket-dead-letters tr[data-id]').count()).toBe(2);
    await page.locator('.ticket-dead-letters').screenshot({ path: path.join(SCREENS_DIR, 'dashboard-ticket-dead-letters.png') });
    await keep('dashboard-ticket-dead-letters');

    await page.goto(`${worker.url}/#/secrets`);
    await page.waitForSelector('text=GITHUB_WEBHOOK_SECRET');
    await screenshot(page, 'dashboard-secrets');
    await keep('dashboard-secrets');

    await page.goto(`${worker.url}/#/templates`);
    await page.waitForSelector('tr[data-template=payment-failed]');
    await screenshot(page, 'dashboard-templates');
    await keep('dashboard-templates');
    await page.goto(`${worker.url}/#/newsletters`);
    await page.waitForSelector('tr[data-newsletter="public/winter-sale"]');
    await screenshot(page, 'dashboard-newsletters');
    await keep('dashboard-newsletters');

    // The Forwarding page: the assistant's calls, searched by the server, one opened.
    const questions = [
      'Do the winter boots run true to size?',
      'Do you ship to Norway?',
      'What sizes do the boots come in?',
      'Can I return sale items?',
      'Do you ship to Norway?',
      'Is the rain jacket waterproof?',
    ];
    for (const question of questions) expect([200, 429]).toContain(await askAssistant(question));
    await page.goto(`${worker.url}/#/forwarding`);
    await page.click('.forward-inspector button[type=submit]');
    await expect.poll(() => page.locator('tr.forward-event').count()).toBe(questions.length);
    await page.locator('tr.forward-event').nth(1).click();
    await page.waitForTimeout(500);
    await screenshot(page, 'dashboard-forwarding');
    await keep('dashboard-forwarding');

    await page.goto(`${worker.url}/#/tickets/github-deploys/logs`);
    await page.waitForTimeout(1_500);
    await screenshot(page, 'dashboard-logs');
    await keep('dashboard-logs');

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await signIn(phone, worker.url, worker.project.owner_key);
      await expect.poll(() => phone.locator('td.rate .traffic').count()).toBe(2);
      await expect.poll(() => phone.locator('td.rate', { hasText: '…' }).count()).toBe(0);
      await expect.poll(() => phone.evaluate(() => document.documentElement.scrollWidth), { timeout: 5_000 }).toBeLessThanOrEqual(390);
      await screenshot(phone, 'dashboard-tickets-phone');
      await keep('dashboard-tickets-phone');

      // The inspector at phone width: an order the warehouse refused, found by its payment intent among the Stripe events.
      const order = `pi_3Q13Acme${(7000 + 13).toString(36)}`;
      await phone.goto(`${worker.url}/#/tickets/stripe-payments/logs`);
      await phone.waitForSelector('.event-row');
      await phone.fill('#ev-search', `body.data.object.id = ${order}`);
      await phone.click('.inspector-filters button[type=submit]');
      await expect.poll(() => phone.locator('.event-row').count()).toBe(1);
      await phone.click('.event-row');
      await expect.poll(() => phone.locator('.event-body').textContent()).toContain(order);
      await expect.poll(() => phone.evaluate(() => document.documentElement.scrollWidth), { timeout: 5_000 }).toBeLessThanOrEqual(390);
      await phone.locator('.inspector').screenshot({ path: path.join(SCREENS_DIR, 'dashboard-inspector.png') });
      await keep('dashboard-inspector');
    } finally {
      await phone.close();
    }
  });
});
