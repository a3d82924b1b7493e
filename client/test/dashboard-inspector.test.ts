import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { screenshot, signIn } from './helpers/dashboard-page.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The event inspector (issue 37 item 4) in real Chromium against `wrangler dev`: a ticket consumed 10,000
// times through the consume route, searched by a body value on the server, one consumption opened.
let worker: ProjectOnWorker;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const TICKET = 'inspected';
const CONSUMPTIONS = 10_000;
/** Consumptions in flight at once. */
const PARALLEL = 20;
/** The one consumption searched for: older than most, so the search walks back through stored segments. */
const TARGET = 3_217;
const CALLER_CREDENTIAL = 'Bearer sk_live_caller_credential_never_shown';
const paymentId = (i: number) => `pi_${i === TARGET ? 'Target' : 'Seed'}${String(i).padStart(8, '0')}`;

/** One consumption through the real route; a flood refusal (429) is waited out and sent again. */
async function consume(i: number): Promise<void> {
  for (;;) {
    const res = await fetch(`${worker.url}/tp/${worker.project.service_id}/${TICKET}?n=${i}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-delivery': `d${i}`,
        ...(i === TARGET ? { authorization: CALLER_CREDENTIAL, cookie: 'session=never-shown' } : {}),
      },
      body: JSON.stringify({ type: 'payment_intent.succeeded', data: { object: { id: paymentId(i), amount: 1000 + i } } }),
    });
    await res.arrayBuffer();
    if (res.status === 200) return;
    if (res.status !== 429) throw new Error(`consumption ${i} answered ${res.status}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Consumptions 1..n, PARALLEL at a time (each worker takes the next number). */
async function consumeAll(n: number): Promise<void> {
  let next = 1;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next <= n) await consume(next++);
    }),
  );
}

/** Searches from the form, then "Load more" while the server's bounded pages have not reached the match. */
async function searchFor(on: Page, text: string): Promise<void> {
  await on.fill('#ev-search', text);
  await on.click('.inspector-filters button[type=submit]');
  for (let clicks = 0; clicks < 20; clicks++) {
    await on.waitForSelector('.inspector-filters button[type=submit]:not([disabled])');
    if ((await on.locator('.event-row').count()) > 0 || (await on.locator('.load-more').count()) === 0) return;
    await on.click('.load-more');
  }
}

beforeAll(async () => {
  [browser, worker] = await Promise.all([launchChromium(), createTestProject()]);
  await worker.registerTicket(TICKET, { actions: [] });
  // A flood limit of 5,000 every 10 s from one address at this ticket (the default is 500): the test is one caller.
  expect((await worker.ownerCall('PATCH', '/settings', { flood_limits: { tickets: { [TICKET]: 5_000 } } })).status).toBe(200);
  const started = performance.now();
  await consumeAll(CONSUMPTIONS);
  console.info(`${CONSUMPTIONS} consumptions, ${PARALLEL} at a time: ${Math.round(performance.now() - started)} ms`);
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: worker.url });
  page = await context.newPage();
  await signIn(page, worker.url, worker.project.owner_key);
}, 900_000);

afterAll(async () => {
  await browser?.close();
});

describe('the event inspector', () => {
  it('finds the one consumption with a body value among 10,000 by a search the server runs, and shows its request', async () => {
    await page.goto(`${worker.url}/#/tickets/${TICKET}/logs`);
    await page.waitForSelector('.event-row');
    const searches: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith(`/tickets/${TICKET}/events`)) searches.push(new URL(request.url()).search);
    });
    await searchFor(page, `body.data.object.id = ${paymentId(TARGET)}`);
    await expect.poll(() => page.locator('.event-row').count(), { timeout: 60_000 }).toBe(1);
    // The server searched: every page asked carried the value search, and none was filtered in the page.
    expect(searches.length).toBeGreaterThan(0);
    for (const search of searches) expect(new URLSearchParams(search).get('equals')).toBe(paymentId(TARGET));
    await page.click('.event-row');
    await expect.poll(() => page.locator('.event-body').textContent()).toContain(paymentId(TARGET));
    expect(await page.locator('.event-request').textContent()).toContain(`?n=${TARGET}`);
    expect(await page.locator('.event-headers').textContent()).toContain('[redacted]');
    expect(await page.locator('.event-detail').textContent()).not.toContain('sk_live_caller_credential');
  });

  it('copies the request as a curl command with the credentials left out', async () => {
    await page.click('.copy-curl');
    await expect.poll(() => page.locator('.copied').textContent()).toContain('Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('curl -X POST');
    expect(copied).toContain(`/tp/${worker.project.service_id}/${TICKET}?n=${TARGET}`);
    expect(copied).toContain(paymentId(TARGET));
    expect(copied).toContain('# Left out: authorization, cookie.');
    expect(copied).not.toContain('sk_live_caller_credential');
    expect(copied).not.toContain('never-shown');
    expect(copied).not.toContain('[redacted]');
  });

  it('refuses a search path that escapes the request, naming where', async () => {
    await searchFor(page, 'body.__proto__ = x');
    await expect.poll(() => page.textContent('#inspector-error')).toMatch(/INVALID_PARAMETER: .*where/);
  });

  it('is usable at phone width: the table stacks into cards and the detail pane opens below', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, worker.url, worker.project.owner_key);
    await phone.goto(`${worker.url}/#/tickets/${TICKET}/logs`);
    await phone.waitForSelector('.event-row');
    await searchFor(phone, `body.data.object.id = ${paymentId(TARGET)}`);
    await expect.poll(() => phone.locator('.event-row').count(), { timeout: 60_000 }).toBe(1);
    await phone.click('.event-row');
    await expect.poll(() => phone.locator('.event-body').textContent()).toContain(paymentId(TARGET));
    // No sideways scrolling at 390 px.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone, 'inspector-phone-search');
    await phone.close();
  });
});
