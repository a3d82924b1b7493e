import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { screenshot, signIn } from './helpers/dashboard-page.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The charts (uPlot) of the tickets list, a ticket's page and the project page, and a ticket's wiring
// (its consume URLs, copy buttons, "Send a test"), in real Chromium against `wrangler dev`. The charts
// are read from what the page drew them with (each chart's data-values: per series, the sum and the
// number of points with a value), compared with consumptions this file makes through the real route.
let worker: ProjectOnWorker;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [browser, worker] = await Promise.all([launchChromium(), createTestProject()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: worker.url });
  page = await context.newPage();
  await signIn(page, worker.url, worker.project.owner_key);
  await worker.registerTicket('charted', {
    description: 'Order events',
    condition: { method: 'POST', body: [{ key: 'ok', operator: '=', value: true }] },
    actions: [{ act: 'resp', exe: { body: { received: true } } }],
  });
});

afterAll(async () => {
  await browser?.close();
});

type Values = Record<string, { sum: number; n: number }>;
const valuesOf = async (chart: Locator): Promise<Values> => JSON.parse((await chart.getAttribute('data-values')) ?? '{}');

/** Consumes through the real route; answers the status and the error code of a refusal. */
async function consume(ticketId: string, body: unknown): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${worker.url}/tp/${worker.project.service_id}/${ticketId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, ...(res.ok ? {} : { code: answer.code }) };
}

/** Opens a page afresh (a hash change alone keeps the page of the test before). */
async function open(hash: string) {
  await page.goto(`${worker.url}/#/${hash}`);
  await page.reload();
}

/** Points reach the metrics within about 30 s of a consumption: Refresh until the chart's sums are `expected`. */
async function pollChart(chart: Locator, label: string, expected: number) {
  await expect
    .poll(
      async () => {
        await page.click('#metrics-refresh');
        return (await valuesOf(chart))[label]?.sum ?? 0;
      },
      { timeout: 60_000, interval: 1_000 },
    )
    .toBe(expected);
}

describe('charts of real consumptions', () => {
  it('a ticket page charts the consumptions made, each failure under its code, and the latency percentiles', async () => {
    const answers = [];
    for (const ok of [true, true, true, false, false]) answers.push(await consume('charted', { ok }));
    const failedCodes: Record<string, number> = {};
    for (const { code } of answers) if (code) failedCodes[code] = (failedCodes[code] ?? 0) + 1;
    expect(Object.values(failedCodes).reduce((a, b) => a + b, 0)).toBe(2);

    await open('tickets/charted/edit');
    await page.click('#metrics button[data-range="1h"]');
    const counts = page.locator('#chart-counts');
    await pollChart(counts, 'consumptions', 5);
    expect((await valuesOf(counts)).failed.sum).toBe(2);
    expect(await counts.getAttribute('data-empty')).toBe('false');
    expect(await counts.locator('canvas').count()).toBeGreaterThan(0);
    const codes = await valuesOf(page.locator('#chart-codes'));
    expect(Object.fromEntries(Object.entries(codes).map(([code, v]) => [code, v.sum]))).toEqual(failedCodes);
    const latency = await valuesOf(page.locator('#chart-latency'));
    expect(latency.p50.n).toBeGreaterThan(0);
    expect(latency.p99.sum).toBeGreaterThanOrEqual(latency.p50.sum);
    expect(await page.textContent('#metrics-totals')).toContain('5 consumptions, 2 failed (40 %)');
    await screenshot(page, 'ticket-charts');
  });

  it("the tickets list draws each ticket's last 24 hours as a sparkline of the same consumptions", async () => {
    await open('tickets');
    const cell = page.locator('tr[data-ticket=charted] td.rate');
    await expect.poll(async () => (await valuesOf(cell.locator('.time-chart'))).consumptions?.sum ?? -1).toBe(5);
    expect((await valuesOf(cell.locator('.time-chart'))).failed.sum).toBe(2);
    expect(await cell.locator('.totals').textContent()).toBe('5 consumptions, 2 failed (40 %)');
  });

  it("the project page charts all its tickets' consumptions merged", async () => {
    await open('project');
    const counts = page.locator('#chart-counts');
    await page.waitForSelector('#chart-counts');
    expect((await valuesOf(counts)).consumptions.sum).toBeGreaterThanOrEqual(5);
    expect((await valuesOf(counts)).failed.sum).toBeGreaterThanOrEqual(2);
  });

  it('a range with no data draws an empty chart with its axes and says so, never an error', async () => {
    await worker.registerTicket('quiet', { description: 'Never called', actions: [] });
    await open('tickets/quiet/edit');
    const counts = page.locator('#chart-counts');
    await page.waitForSelector('#chart-counts canvas');
    for (const range of ['24h', '30d'] as const) {
      await page.click(`#metrics button[data-range="${range}"]`);
      await expect.poll(() => page.getAttribute('#metrics', 'data-range')).toBe(range);
      await expect.poll(() => counts.getAttribute('data-empty')).toBe('true');
      expect((await valuesOf(counts)).consumptions).toMatchObject({ sum: 0 });
      expect(await counts.locator('.chart-empty').textContent()).toMatch(/^No consumptions in this range/);
      expect(await counts.locator('.u-axis').count()).toBe(2);
      expect(await page.locator('#metrics .status.error').count()).toBe(0);
    }
    const sparkCell = async () => (await open('tickets'), page.locator('tr[data-ticket=quiet] td.rate'));
    const cell = await sparkCell();
    await expect.poll(() => cell.locator('.totals').textContent()).toBe('no consumptions');
  });
});

describe("a ticket's wiring", () => {
  it('each copy button puts its consume URL on the clipboard', async () => {
    await open('tickets/charted/edit');
    const { service_id, owner_id } = worker.project;
    const expected = {
      tp: `${worker.url}/tp/${service_id}/charted`,
      tg: `${worker.url}/tg/${service_id}/charted`,
      tpa: `${worker.url}/tpa/${service_id}/charted`,
      check: `${worker.url}/publ/check/${service_id}/${owner_id}/charted`,
    };
    await page.waitForSelector('#wiring [data-copy=tp]');
    for (const [name, url] of Object.entries(expected)) {
      await page.click(`#wiring [data-copy=${name}]`);
      await expect.poll(() => page.textContent(`#wiring [data-copy=${name}]`)).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
      expect(await page.textContent(`#wiring [data-url=${name}] code.url`)).toBe(url);
    }
  });

  it('send a test consumes the ticket from the page with the edited body and shows the answer', async () => {
    await worker.registerTicket('echoed', {
      description: 'Echo',
      condition: { method: 'POST' },
      actions: [{ act: 'resp', exe: { body: { echo: '${body[note]}' } } }],
    });
    await open('tickets/echoed/edit');
    await page.waitForSelector('#test-body');
    expect(await page.locator('#wiring-signed-note').count()).toBe(0);
    expect(await page.isChecked('#test-mode-consume')).toBe(true);
    await page.fill('#test-body', JSON.stringify({ note: 'sent from the page' }));
    await page.click('#test-send');
    const answer = page.locator('#test-answer');
    await expect.poll(() => answer.getAttribute('data-passed')).toBe('true');
    expect(JSON.parse((await answer.locator('pre').textContent()) ?? '')).toEqual({ echo: 'sent from the page' });

    await page.check('#test-mode-check');
    await page.click('#test-send');
    await expect.poll(() => answer.locator('strong').textContent()).toBe('Dry run passed');
  });

  it('a signed ticket says a test from the page is refused, starts on the dry run with the sample event, and shows the refusal', async () => {
    await worker.putSecretKey('stripe_signing', { value: 'whsec_charts_test_secret' });
    await worker.registerTicket('stripe-payments', {
      description: 'Stripe payments',
      condition: { preset: { id: 'stripe', secretName: 'stripe_signing' } },
      actions: [],
    });
    await open('tickets/stripe-payments/edit');
    await page.waitForSelector('#wiring-signed-note');
    expect(await page.textContent('#wiring-signed-note')).toContain('Stripe signature');
    expect(JSON.parse(await page.inputValue('#test-body'))).toMatchObject({ object: 'event', type: 'payment_intent.succeeded' });
    expect(await page.isChecked('#test-mode-check')).toBe(true);
    await page.click('#test-send');
    const answer = page.locator('#test-answer');
    await expect.poll(() => answer.getAttribute('data-passed')).toBe('false');
    expect(await answer.locator('strong').textContent()).toBe('Dry run refused');
    expect(JSON.parse((await answer.locator('pre').textContent()) ?? '')).toMatchObject({
      passed: false,
      error: { code: 'CONDITION_FAILED', detail: { field: 'signature' } },
    });
  });

  it('at phone width (390 px) the charts, URLs and test fit the screen', async () => {
    const phone = await context.newPage();
    try {
      await phone.setViewportSize({ width: 390, height: 844 });
      await signIn(phone, worker.url, worker.project.owner_key);
      await phone.goto(`${worker.url}/#/tickets/charted/edit`);
      await phone.waitForSelector('#chart-counts canvas');
      await phone.waitForSelector('#wiring [data-copy=tp]');
      // Once the charts are sized to their boxes (a chart is resized after the style sheet lays the page out).
      await expect.poll(() => phone.evaluate(() => document.documentElement.scrollWidth), { timeout: 5_000 }).toBeLessThanOrEqual(390);
      const chart = await phone.locator('#chart-counts canvas').first().boundingBox();
      expect(chart!.x + chart!.width).toBeLessThanOrEqual(390);
      expect(await phone.locator('#wiring [data-copy=tp]').isVisible()).toBe(true);
      await phone.click('#metrics button[data-range="7d"]');
      await expect.poll(() => phone.getAttribute('#metrics', 'data-range')).toBe('7d');
      await screenshot(phone, 'ticket-phone');
    } finally {
      await phone.close();
    }
  });
});
