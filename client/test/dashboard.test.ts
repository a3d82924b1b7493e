import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Svc } from '../src/index.js';
import { launchChromium } from './helpers/chromium.js';
import { startTestWorker, type TestWorker } from './helpers/worker.js';

// The owner dashboard (dashboard/, served by the Worker's static assets) in Debian's Chromium.
let worker: TestWorker;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  worker = await startTestWorker();
  await worker.registerTicket('existing', { description: 'Registered before the page opened', count: 3, condition: { method: 'POST' }, actions: [] });
  page = await browser.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${worker.url}/`);
  await page.fill('#signin [name=service_id]', worker.project.service_id);
  await page.fill('#signin [name=owner_key]', worker.project.owner_key);
  await page.click('#signin button');
});

afterAll(async () => {
  await worker?.stop();
  await browser?.close();
});

const owner = () => new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: worker.project.owner_key });
const listedIds = () => page.$$eval('#tickets tbody tr td:first-child', (cells) => cells.map((cell) => cell.textContent));
const status = () => page.textContent('#status');

async function saveDefinition(ticketId: string, definition: string) {
  await page.fill('#register [name=ticket_id]', ticketId);
  await page.fill('#register [name=definition]', definition);
  await page.click('#register button');
}

describe('the owner dashboard', () => {
  it('after signing in with the owner key it lists the registered tickets with their count', async () => {
    await expect.poll(listedIds, { timeout: 15_000 }).toContain('existing');
    const cells = await page.$$eval('#tickets tbody tr', (rows) =>
      rows.filter((row) => row.firstElementChild?.textContent === 'existing').map((row) => Array.from(row.children).slice(0, 3).map((cell) => cell.textContent)),
    );
    expect(cells).toEqual([['existing', 'Registered before the page opened', '3']]);
  });

  it('registers a ticket from its JSON definition, and the service holds it', async () => {
    await saveDefinition('from-dashboard', JSON.stringify({ description: 'Made in the page', count: 7, condition: { method: 'GET' }, actions: [] }));
    await expect.poll(status, { timeout: 15_000 }).toBe('Saved from-dashboard.');
    await expect.poll(listedIds).toContain('from-dashboard');
    const [stored] = (await owner().getTickets({ ticket_id: 'from-dashboard' })).list;
    expect(stored).toMatchObject({ description: 'Made in the page', count: 7, condition: { method: 'GET' } });
  });

  it('shows the service refusal of a bad definition by its code, and stores nothing', async () => {
    await saveDefinition('refused', JSON.stringify({ condition: { method: 'PATCH' }, actions: [] }));
    await expect.poll(status, { timeout: 15_000 }).toMatch(/^INVALID_[A-Z_]+: /);
    expect(await page.getAttribute('#status', 'class')).toBe('error');
    expect((await owner().getTickets({ ticket_id: 'refused' })).list).toEqual([]);
  });

  it('says when the definition is not JSON, without calling the service', async () => {
    await saveDefinition('not-json', '{ "condition": ');
    await expect.poll(status).toMatch(/^The definition is not valid JSON: /);
    expect((await owner().getTickets({ ticket_id: 'not-json' })).list).toEqual([]);
  });

  it('Edit fills the form with the stored definition, and Delete removes the ticket', async () => {
    const rowOf = (id: string) => page.locator('#tickets tbody tr', { has: page.locator('td:first-child', { hasText: new RegExp(`^${id}$`) }) });
    await rowOf('existing').getByRole('button', { name: 'Edit' }).click();
    expect(await page.inputValue('#register [name=ticket_id]')).toBe('existing');
    expect(JSON.parse(await page.inputValue('#register [name=definition]'))).toMatchObject({ description: 'Registered before the page opened', count: 3 });

    await rowOf('from-dashboard').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(status, { timeout: 15_000 }).toBe('Deleted from-dashboard.');
    await expect.poll(listedIds).not.toContain('from-dashboard');
    expect((await owner().getTickets({ ticket_id: 'from-dashboard' })).list).toEqual([]);
  });

  it('with a wrong owner key the page shows the refusal and lists nothing', async () => {
    const other = await browser.newPage();
    try {
      await other.goto(`${worker.url}/`);
      await other.fill('#signin [name=service_id]', worker.project.service_id);
      await other.fill('#signin [name=owner_key]', 'ok_not-the-key');
      await other.click('#signin button');
      await expect.poll(() => other.textContent('#status'), { timeout: 15_000 }).toMatch(/^[A-Z_]+: /);
      expect(await other.$$eval('#tickets tbody tr', (rows) => rows.length)).toBe(0);
    } finally {
      await other.close();
    }
  });
});
