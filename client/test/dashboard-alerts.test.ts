import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { screenshot, signIn } from './helpers/dashboard-page.js';
import { startScriptedServer, type ScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The Alerts section of the project page in real Chromium against `wrangler dev`: a rule made with the
// form, a destination paused by five failing forwarded requests, the minute's cron run, and the incident
// that opened listed, its failed webhook shown, and acknowledged.
let worker: ProjectOnWorker;
let browser: Browser;
let page: Page;
/** A destination that always fails, and a webhook receiver that is down (answers 503). */
let failing: ScriptedServer;

beforeAll(async () => {
  [browser, worker, failing] = await Promise.all([launchChromium(), createTestProject(), startScriptedServer()]);
  failing.handle((_request, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}'));
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page, worker.url, worker.project.owner_key);
});

afterAll(async () => {
  await browser?.close();
  await failing?.close();
});

async function openProjectPage() {
  await page.goto(`${worker.url}/#/project`);
  await page.reload();
  await page.waitForSelector('#alert-rule-form');
}

/** Five forwarded requests with retry that the destination fails: its circuit opens (a paused destination). */
async function pauseDestination() {
  for (let n = 0; n < 5; n++) {
    const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'dashboard-alerts-visitor' },
      body: JSON.stringify({ url: `${failing.url}/failing`, method: 'POST', queue: 'alerts-circuit', retry: true }),
    });
    expect(res.status).toBe(200);
  }
  await expect.poll(async () => (await worker.ownerCall('GET', '/destinations')).json.list.length, { timeout: 20_000 }).toBeGreaterThan(0);
}

describe('the Alerts section of the project page', () => {
  it('refuses a webhook url the service would not call, marking the input', async () => {
    await openProjectPage();
    await page.selectOption('#alert-kind', 'destination_paused');
    await page.fill('#alert-webhook-url', 'ftp://alerts.example.com/hook');
    await page.click('#alert-rule-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#alert-webhook-url', 'aria-invalid')).toBe('true');
    expect(await page.textContent('[data-error-for=webhook_url]')).toContain('channels.webhook.url');
  });

  it('makes a rule with the form and shows its webhook secret once', async () => {
    await openProjectPage();
    await page.selectOption('#alert-kind', 'destination_paused');
    await page.fill('#alert-name', 'Destination paused');
    await page.fill('#alert-window-minutes', '1');
    await page.fill('#alert-email', 'ops@example.com');
    await page.fill('#alert-webhook-url', `${failing.url}/hook`);
    await page.click('#alert-rule-form button[type=submit]');
    await expect.poll(() => page.textContent('#alert-secret')).toMatch(/whsec_[A-Za-z0-9+/]{32}/);
    const row = page.locator('.alert-rule');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('.badge').textContent()).toBe('ok');
    const rules = (await worker.ownerCall('GET', '/alert-rules')).json.list;
    expect(rules).toMatchObject([{ kind: 'destination_paused', name: 'Destination paused', window_minutes: 1, channels: { email: ['ops@example.com'] } }]);
    await page.reload();
    await page.waitForSelector('.alert-rule');
    expect(await page.locator('#alert-secret').count()).toBe(0);
  });

  it('lists the incident the cron opened, with its failed webhook, and acknowledges it', async () => {
    await pauseDestination();
    const cron = await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(cron.status).toBe(200);
    await expect.poll(async () => (await worker.ownerCall('GET', '/incidents')).json.list.length, { timeout: 20_000 }).toBe(1);
    // The notification leaves through the work queue: its failure (the receiver answers 503) shows once it was tried.
    await expect
      .poll(async () => (await worker.ownerCall('GET', '/incidents')).json.list[0].last_delivery, { timeout: 20_000 })
      .toMatchObject({ ok: false, status: 503 });
    await openProjectPage();
    const incident = page.locator('.incident');
    await expect.poll(() => incident.count()).toBe(1);
    expect(await incident.locator('.badge').textContent()).toBe('open');
    expect(await incident.locator('.delivery-failed').textContent()).toContain('The webhook answered 503.');
    expect(await page.locator('.alert-rule .badge').textContent()).toBe('firing');
    expect(await page.locator('.alert-rule .delivery-failed').textContent()).toContain('alert.opened failed');
    await screenshot(page, 'project-alerts');
    await incident.locator('button', { hasText: 'Acknowledge' }).click();
    await expect.poll(() => page.locator('.incident .badge').textContent()).toBe('acknowledged');
    expect(await page.locator('.incident button', { hasText: 'Acknowledge' }).count()).toBe(0);
    expect((await worker.ownerCall('GET', '/incidents')).json.list[0].state).toBe('acknowledged');
  });

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openProjectPage();
    // Once the rules, the incidents and the charts are drawn (a chart is sized to its box once the style sheet laid the page out).
    await page.waitForSelector('.alert-rule');
    await page.waitForSelector('#chart-counts canvas');
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), { timeout: 5_000 }).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
