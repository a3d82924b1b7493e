import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Svc } from '../src/index.js';
import { launchChromium } from './helpers/chromium.js';
import { startTestWorker, type TestWorker } from './helpers/worker.js';

// The owner dashboard (dashboard/, served by the Worker's static assets) in Debian's Chromium.
let worker: TestWorker;
let browser: Browser;
let page: Page;
/** Every registration (PUT of a ticket) the page sent, as the browser saw it leave. */
const registrationsSent: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  worker = await startTestWorker();
  await worker.registerTicket('existing', { description: 'Registered before the page opened', count: 3, condition: { method: 'POST' }, actions: [] });
  page = await browser.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('request', (request) => {
    if (request.method() === 'PUT' && new URL(request.url()).pathname.includes('/tickets/')) registrationsSent.push(request.url());
  });
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

/** The registry's refusal of a definition (JSON text), asked of the server directly, as the page shows one: `CODE: message`. */
async function serverRefusal(ticketId: string, definition: string): Promise<string> {
  const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/tickets/${ticketId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${worker.project.owner_key}`, 'content-type': 'application/json' },
    body: definition,
  });
  const body = (await res.json()) as { code: string; message: string };
  expect(res.status, JSON.stringify(body)).toBe(400);
  return `${body.code}: ${body.message}`;
}

/** A definition whose req action carries a value nested `depth` levels deep. */
const nestedDefinition = (depth: number) =>
  `{"actions":[{"act":"req","exe":{"url":"https://example.com/hook","method":"POST","data":${'['.repeat(depth)}${']'.repeat(depth)}}}]}`;

describe('the owner dashboard', () => {
  it('after signing in with the owner key it lists the registered tickets with their count', async () => {
    await expect.poll(listedIds, { timeout: 15_000 }).toContain('existing');
    const cells = await page.$$eval('#tickets tbody tr', (rows) =>
      rows.filter((row) => row.firstElementChild?.textContent === 'existing').map((row) => Array.from(row.children).slice(0, 3).map((cell) => cell.textContent)),
    );
    expect(cells).toEqual([['existing', 'Registered before the page opened', '3']]);
  });

  it('registers a ticket from its JSON definition, and the service holds it', async () => {
    const sentBefore = registrationsSent.length;
    await saveDefinition('from-dashboard', JSON.stringify({ description: 'Made in the page', count: 7, condition: { method: 'GET' }, actions: [] }));
    await expect.poll(status, { timeout: 15_000 }).toBe('Saved from-dashboard.');
    expect(registrationsSent.length - sentBefore).toBe(1);
    await expect.poll(listedIds).toContain('from-dashboard');
    const [stored] = (await owner().getTickets({ ticket_id: 'from-dashboard' })).list;
    expect(stored).toMatchObject({ description: 'Made in the page', count: 7, condition: { method: 'GET' } });
  });

  it("refuses a definition the registry refuses in the page, with the registry's own message naming the field, sending nothing", async () => {
    const refused: [string, unknown][] = [
      ['refused', { condition: { method: 'PATCH' }, actions: [] }],
      ['unknown-field', { description: 'x', colour: 'red', actions: [] }],
      ['no-actions', { description: 'x' }],
      ['bad-count', { count: -1, actions: [] }],
      ['expired', { time_to_live: 1_000, actions: [] }],
      ['other-id', { ticket_id: 'another-id', actions: [] }],
      ['bad-mail', { actions: [{ act: 'mail', exe: { template: 'welcome', to: 'not-an-address' } }] }],
      ['bad-url', { actions: [{ act: 'req', exe: { url: 'ftp://example.com/hook' } }] }],
    ];
    for (const [ticketId, definition] of refused) {
      const expected = await serverRefusal(ticketId, JSON.stringify(definition));
      expect(expected).toMatch(/^INVALID_PARAMETER: /);
      const sentBefore = registrationsSent.length;
      await saveDefinition(ticketId, JSON.stringify(definition));
      await expect.poll(status, { timeout: 15_000 }).toBe(expected);
      expect(await page.getAttribute('#status', 'class')).toBe('error');
      expect(registrationsSent.length - sentBefore, ticketId).toBe(0);
      expect((await owner().getTickets({ ticket_id: ticketId })).list).toEqual([]);
    }
  });

  it('sends a definition only the service can refuse (a secret the project lacks), and shows its refusal', async () => {
    const definition = { actions: [{ act: 'req', exe: { url: 'https://example.com/hook', secretName: 'NOT_STORED' } }] };
    const expected = await serverRefusal('lacks-secret', JSON.stringify(definition));
    expect(expected).toMatch(/actions\[0\]\.exe\.secretName/);
    const sentBefore = registrationsSent.length;
    await saveDefinition('lacks-secret', JSON.stringify(definition));
    await expect.poll(status, { timeout: 15_000 }).toBe(expected);
    expect(registrationsSent.length - sentBefore).toBe(1);
    expect((await owner().getTickets({ ticket_id: 'lacks-secret' })).list).toEqual([]);
  });

  it("sends a definition nested too deep for the page's check, and shows the service's refusal by its nesting limit", async () => {
    const text = nestedDefinition(20_000);
    const expected = await serverRefusal('too-deep', text);
    expect(expected).toMatch(/nested deeper than/);
    const sentBefore = registrationsSent.length;
    await saveDefinition('too-deep', text);
    await expect.poll(status, { timeout: 15_000 }).toBe(expected);
    expect(registrationsSent.length - sentBefore).toBe(1);
  });

  it('says when the definition is not JSON, without calling the service', async () => {
    const sentBefore = registrationsSent.length;
    await saveDefinition('not-json', '{ "condition": ');
    await expect.poll(status).toMatch(/^The definition is not valid JSON: /);
    expect(registrationsSent.length - sentBefore).toBe(0);
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
