import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { signIn } from './helpers/dashboard-page.js';
import { json, startScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The event inspector of the forwarding history (issue 37 item 4) in real Chromium against `wrangler dev`:
// a visitor's requests to a loopback destination, searched by a body value and by the answer's class.
let worker: ProjectOnWorker;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let destination: Awaited<ReturnType<typeof startScriptedServer>>;
const SECRET = 'sk-forward-inspector-never-shown-4Rz';
const REQUESTS = 30;

async function forwardAsVisitor(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'forward-inspector-visitor' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  expect(res.status).toBe(200);
}

async function historySize(): Promise<number> {
  const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward/requests?limit=100`, {
    headers: { authorization: `Bearer ${worker.project.owner_key}` },
  });
  return ((await res.json()) as { list: unknown[] }).list.length;
}

beforeAll(async () => {
  [browser, worker, destination] = await Promise.all([launchChromium(), createTestProject(), startScriptedServer()]);
  // Order 13 is refused by the destination (503); every other one is accepted.
  destination.handle((req, res) => json(res, req.url?.includes('/orders/13') ? 503 : 200, { ok: true }));
  await worker.putSecretKey('dest', { value: SECRET });
  for (let i = 1; i <= REQUESTS; i++) {
    await forwardAsVisitor({
      url: `${destination.url}/orders/${i}`,
      method: 'POST',
      secretName: 'dest',
      headers: { 'x-key': '$CLIENT_SECRET', 'x-order': `o${i}` },
      data: { order: { id: i, note: `order ${i}` } },
    });
  }
  const until = Date.now() + 20_000;
  while ((await historySize()) < REQUESTS) {
    if (Date.now() > until) throw new Error('the requests never reached the history');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: worker.url });
  page = await context.newPage();
  await signIn(page, worker.url, worker.project.owner_key);
});

afterAll(async () => {
  await browser?.close();
  await destination?.close();
});

/** The path of each listed request, in order. */
const rowPaths = async () => (await page.locator('.forward-event').allTextContents()).map((text) => /\/orders\/\d+/.exec(text)?.[0]);

describe('the forwarding inspector', () => {
  it('finds one forwarded request by a body value, on the server, and shows it with the key as its placeholder', async () => {
    await page.click('nav a[href="#/forwarding"]');
    await page.waitForSelector('#fe-search');
    const searches: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/forward/events')) searches.push(new URL(request.url()).search);
    });
    await page.fill('#fe-search', 'body.order.id = 17');
    await page.click('.forward-inspector button[type=submit]');
    await expect.poll(() => page.locator('.forward-event').count()).toBe(1);
    expect(new URLSearchParams(searches[0]).get('equals')).toBe('17');
    expect(await page.locator('.forward-event').textContent()).toContain('/orders/17');
    await page.click('.forward-event');
    await expect.poll(() => page.locator('.forward-inspector .event-body').textContent()).toContain('order 17');
    expect(await page.locator('.forward-inspector .event-headers').textContent()).toContain('$CLIENT_SECRET');
    expect(await page.locator('.forward-inspector').textContent()).not.toContain(SECRET);
    await page.click('.forward-inspector .copy-curl');
    await expect.poll(() => page.locator('.forward-inspector .copied').textContent()).toContain('Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`'${destination.url}/orders/17'`);
    expect(copied).toContain("-H 'x-key: $CLIENT_SECRET'");
    expect(copied).not.toContain(SECRET);
  });

  it('filters by the class of the answer and by a header value', async () => {
    await page.fill('#fe-search', '');
    await page.selectOption('#fe-status', '5xx');
    await page.click('.forward-inspector button[type=submit]');
    await expect.poll(() => rowPaths()).toEqual(['/orders/13']);
    await page.selectOption('#fe-status', '');
    await page.fill('#fe-search', 'headers.X-Order = o29');
    await page.click('.forward-inspector button[type=submit]');
    await expect
      .poll(async () => (await page.locator('.forward-event').count()) === 1 && (await page.locator('.forward-event').textContent())?.includes('/orders/29'))
      .toBe(true);
  });
});
