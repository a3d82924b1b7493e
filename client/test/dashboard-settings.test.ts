import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { input, screenshot, signIn, tabTo } from './helpers/dashboard-page.js';
import { seedLog, seededConsumeId } from './helpers/seed-log.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The dashboard's settings pages (mail templates, newsletters, project), a log of 100,000 rows and
// HTML in every text field, in real Chromium against `wrangler dev`: one project and one browser.
let worker: ProjectOnWorker;
let browser: Browser;
let page: Page;
/** Dialogs the page opened (an alert() that ran would be one). */
const dialogs: string[] = [];
// Each piece marks itself: an element with an id starting "injected-" or window.__injected means it ran or was parsed as HTML.
const INJECTED =
  '<img id="injected-img" src=x onerror="window.__injected=1;alert(1)"><script id="injected-script">window.__injected=2;alert(2)</script>' +
  '<svg id="injected-svg" onload="alert(3)"></svg><b id="injected-b">bold</b>';

beforeAll(async () => {
  [browser, worker] = await Promise.all([launchChromium(), createTestProject()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await signIn(page, worker.url, worker.project.owner_key);
});

afterAll(async () => {
  await browser?.close();
});

const ownerCall = (method: string, path: string, body?: unknown) => worker.ownerCall(method, path, body);

/** Nothing of INJECTED became an element, ran, or opened a dialog. */
async function expectNothingInjected() {
  expect(await page.locator('[id^="injected-"]').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
  expect(dialogs).toEqual([]);
}

/** Opens a page by its hash route, reloaded so it reads the service afresh. */
async function openPage(hash: string, ready: string) {
  await page.goto(`${worker.url}/#/${hash}`);
  await page.reload();
  await page.waitForSelector(ready);
}

const logRows = () => page.locator('.log-row');
const logIds = () => logRows().evaluateAll((rows) => rows.map((row) => row.getAttribute('data-consume-id')));

describe('dashboard settings pages', () => {
  it('mail templates: creates one with placeholders, edits it, and deletes it only after a confirmation', async () => {
    await openPage('templates', '#template-form');
    await page.fill('#template-id', 'welcome');
    await page.fill('#template-subject', 'Welcome ${name}');
    await page.fill('#template-html', '<p>Hi ${name}, order ${order_id}</p>');
    await page.fill('#template-text', 'Hi ${name}; write $${literal} to show a placeholder');
    await expect.poll(() => page.textContent('#template-placeholders .placeholders')).toBe('name, order_id');
    await page.click('#template-form button[type=submit]');
    await expect.poll(() => page.textContent('#templates-status')).toBe('Saved mail template welcome.');
    const row = page.locator('tr[data-template=welcome]');
    await expect.poll(() => row.locator('td[data-label=placeholders]').textContent()).toBe('name, order_id');
    expect((await ownerCall('GET', '/mail-templates/welcome')).json).toMatchObject({
      subject: 'Welcome ${name}',
      html: '<p>Hi ${name}, order ${order_id}</p>',
    });

    await row.locator('button', { hasText: 'Edit' }).click();
    expect(await page.inputValue('#template-id')).toBe('welcome');
    expect(await page.inputValue('#template-text')).toBe('Hi ${name}; write $${literal} to show a placeholder');
    await page.fill('#template-subject', 'Welcome back ${name}');
    await page.click('#template-form button[type=submit]');
    await expect.poll(() => row.locator('td.subject').textContent()).toBe('Welcome back ${name}');
    expect((await ownerCall('GET', '/mail-templates/welcome')).json.subject).toBe('Welcome back ${name}');
    await screenshot(page, 'templates');

    await row.locator('button', { hasText: 'Delete' }).click();
    await page.click('dialog button:has-text("Cancel")');
    expect((await ownerCall('GET', '/mail-templates/welcome')).status).toBe(200);
    await row.locator('button', { hasText: 'Delete' }).click();
    await page.click('dialog button.danger');
    await expect.poll(() => page.textContent('#templates-status')).toBe('Deleted mail template welcome.');
    expect((await ownerCall('GET', '/mail-templates/welcome')).status).toBe(404);
    expect(await row.count()).toBe(0);
  });

  it("mail templates: the service's refusal is shown and nothing is stored", async () => {
    await openPage('templates', '#template-form');
    await page.fill('#template-id', 'too-long-subject');
    await page.fill('#template-subject', 'x'.repeat(998));
    // The input caps what is typed at 998; the service's own limit is checked through the API below.
    expect((await page.inputValue('#template-subject')).length).toBe(998);
    await page.$eval('#template-subject', (el) => el.removeAttribute('maxlength'));
    await page.fill('#template-subject', 'x'.repeat(999));
    await page.click('#template-form button[type=submit]');
    await expect.poll(() => page.textContent('#templates-status')).toMatch(/^INVALID_PARAMETER: .*subject/);
    expect(await page.getAttribute('#templates-status', 'role')).toBe('alert');
    expect((await ownerCall('GET', '/mail-templates/too-long-subject')).status).toBe(404);
  });

  it('mail templates: saved with the keyboard alone', async () => {
    await openPage('templates', '#template-form');
    await tabTo(page, '#template-id');
    await page.keyboard.type('by-keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Typed ${name}');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#templates-status')).toBe('Saved mail template by-keyboard.');
    expect((await ownerCall('GET', '/mail-templates/by-keyboard')).json.subject).toBe('Typed ${name}');
  });

  it('newsletters: listed by group, created and edited in the form, a group opened to its subscribers a page at a time, deleted after a confirmation', async () => {
    for (let i = 0; i < 55; i++) {
      expect((await ownerCall('PUT', `/subscribers/7/reader${String(i).padStart(2, '0')}@example.com`, {})).status).toBe(200);
    }
    await openPage('newsletters', '#newsletter-form');
    for (const [group, id, subject] of [
      ['public', 'launch', 'We launched'],
      ['7', 'members-news', 'For group 7 ${name}'],
    ]) {
      await page.fill('#newsletter-group', group);
      await page.fill('#newsletter-message-id', id);
      await page.fill('#newsletter-subject', subject);
      await page.fill('#newsletter-text', `Text of ${id}`);
      await page.click('#newsletter-form button[type=submit]');
      await expect.poll(() => page.textContent('#newsletters-status')).toBe(`Saved newsletter ${id} of group ${group}.`);
    }
    await expect
      .poll(() => page.locator('.newsletter-group').evaluateAll((groups) => groups.map((g) => g.getAttribute('data-group'))))
      .toEqual(['7', 'public']);
    expect(await page.locator('.newsletter-group[data-group=public] tr[data-newsletter="public/launch"]').count()).toBe(1);
    expect(await page.locator('.newsletter-group[data-group="7"] tr[data-newsletter="7/members-news"]').count()).toBe(1);

    const members = page.locator('tr[data-newsletter="7/members-news"]');
    await members.locator('button', { hasText: 'Edit' }).click();
    expect(await page.inputValue('#newsletter-group')).toBe('7');
    await page.fill('#newsletter-subject', 'For group 7, edited');
    await page.click('#newsletter-form button[type=submit]');
    await expect.poll(() => members.locator('td.subject').textContent()).toBe('For group 7, edited');
    expect((await ownerCall('GET', '/newsletters/7/members-news')).json).toMatchObject({
      group: 7,
      subject: 'For group 7, edited',
      text: 'Text of members-news',
    });
    await screenshot(page, 'newsletters');

    await page.click('button[aria-label="Open group 7 and its subscribers"]');
    await expect.poll(() => page.locator('#subscribers li').count()).toBe(50);
    // The subscribers and the group's own listing load separately: wait for both.
    await expect.poll(() => page.locator('.newsletter-group').count()).toBe(1);
    expect(await page.inputValue('#newsletter-group-filter')).toBe('7');
    await page.click('button:has-text("More subscribers")');
    await expect.poll(() => page.locator('#subscribers li').count()).toBe(55);
    expect(await page.locator('button:has-text("More subscribers")').count()).toBe(0);
    expect(await page.locator('#subscribers li').last().getAttribute('data-email')).toBe('reader54@example.com');

    await members.locator('button', { hasText: 'Delete' }).click();
    await page.click('dialog button:has-text("Cancel")');
    expect((await ownerCall('GET', '/newsletters/7/members-news')).status).toBe(200);
    await members.locator('button', { hasText: 'Delete' }).click();
    await page.click('dialog button.danger');
    await expect.poll(() => page.textContent('#newsletters-status')).toBe('Deleted newsletter members-news of group 7.');
    expect((await ownerCall('GET', '/newsletters/7/members-news')).status).toBe(404);
    // The group's subscribers stay.
    expect((await ownerCall('GET', '/subscribers/7?limit=100')).json.list).toHaveLength(55);
  });

  it('newsletters: a group the service refuses is shown as its message, and nothing is stored', async () => {
    await openPage('newsletters', '#newsletter-form');
    await page.fill('#newsletter-group', '100');
    await page.fill('#newsletter-message-id', 'refused');
    await page.fill('#newsletter-subject', 'Never stored');
    await page.click('#newsletter-form button[type=submit]');
    await expect.poll(() => page.textContent('#newsletters-status')).toMatch(/^INVALID_PARAMETER: Invalid "group"/);
    expect((await ownerCall('GET', '/newsletters')).json.list.some((n: { message_id: string }) => n.message_id === 'refused')).toBe(false);
  });

  it('project: the owner changes name and Destinations, sees them after a reload, and a bad destination is refused at its field', async () => {
    await openPage('project', '#settings-form');
    const value = (term: string) => page.textContent(`#project-identity [data-field="${term}"] dd`);
    expect(await value('service id')).toBe(worker.project.service_id);
    expect(await value('plan')).toBe('free');
    expect(await value('active')).toBe('yes');
    expect(await page.textContent('#operator-settings')).toMatch(/plan and whether the project is active are changed by the service's operator/);
    expect(await page.inputValue('#settings-name')).toBe('Client tests');
    expect(await page.textContent('#settings-key-state strong')).toBe('not set');

    await page.fill('#settings-name', 'Client tests (renamed)');
    await page.fill('#settings-destinations', 'https://api.example/v1\nhttps://hooks.example/in');
    await page.fill('#settings-key', 'sr-key-from-the-page');
    await page.click('#settings-form button[type=submit]');
    await expect.poll(() => page.textContent('#project-status')).toBe('Saved the project settings.');
    expect(await page.textContent('header.top .project')).toBe('Client tests (renamed)');

    await openPage('project', '#settings-form');
    expect(await page.inputValue('#settings-name')).toBe('Client tests (renamed)');
    expect(await page.inputValue('#settings-destinations')).toBe('https://api.example/v1\nhttps://hooks.example/in');
    expect(await page.inputValue('#settings-key')).toBe('');
    expect(await page.textContent('#settings-key-state strong')).toBe('set');
    expect(await page.content()).not.toContain('sr-key-from-the-page');
    await screenshot(page, 'project');

    await page.fill('#settings-destinations', 'https://api.example/v1\nhttps://u@api.example/');
    await page.click('#settings-form button[type=submit]');
    const refusal = page.locator('#settings-destinations-err[data-error-for=destinations]');
    await expect.poll(() => refusal.textContent()).toMatch(/^INVALID_PARAMETER: Invalid "secure_request_destinations\[1\]"/);
    expect(await page.getAttribute('#settings-destinations', 'aria-invalid')).toBe('true');
    const owner = await fetch(`${worker.url}/v1/owner`, { headers: { authorization: `Bearer ${worker.project.owner_key}` } });
    expect(await owner.json()).toMatchObject({
      name: 'Client tests (renamed)',
      secure_request_key_set: true,
      secure_request_destinations: ['https://api.example/v1', 'https://hooks.example/in'],
    });

    await page.click('#settings-key-remove');
    await expect.poll(() => page.textContent('#settings-key-state strong')).toBe('not set');
    expect(await page.getAttribute('nav a[href="#/project"]', 'aria-current')).toBe('page');
  });
});

describe('bad input on the dashboard', () => {
  it('pages through a log of 100,000 rows 25 at a time, and the outcome filter finds rows rare in it by asking the service', async () => {
    const rows = 100_000;
    await seedLog(worker.persistTo, {
      serviceId: worker.project.service_id,
      ticketId: 'big-log',
      rows,
      firstTimestamp: 1_700_000_000_000,
      failedEvery: 10,
      checkEvery: 1_000,
    });
    const listed: number[] = [];
    const limits = new Set<string | null>();
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (url.pathname.endsWith('/tickets') && url.searchParams.get('ticket_id') === '#big-log#') {
        limits.add(url.searchParams.get('limit'));
        listed.push(((await response.json()) as { list: unknown[] }).list.length);
      }
    });

    // A hash change alone: the page reads its first page once.
    await page.goto(`${worker.url}/#/tickets/big-log/logs`);
    await expect.poll(() => logRows().count()).toBe(25);
    expect((await logIds())[0]).toBe(seededConsumeId(rows));
    await page.click('button:has-text("Older rows")');
    await expect.poll(() => logRows().count()).toBe(50);
    await page.click('button:has-text("Older rows")');
    await expect.poll(() => logRows().count()).toBe(75);
    expect((await logIds()).at(-1)).toBe(seededConsumeId(rows - 74));
    // Three pages of 25 read: 75 of the 100,000 rows crossed the network.
    await expect.poll(() => listed.reduce((a, b) => a + b, 0)).toBe(75);
    expect([...limits]).toEqual(['25']);

    // One row in 1,000 is a dry run: the page of 25 reaches 24,000 rows back, which only the service's filter can.
    await page.selectOption('#log-outcome', 'check');
    await expect.poll(async () => (await logIds())[24]).toBe(seededConsumeId(rows - 24 * 1_000));
    expect(await logRows().count()).toBe(25);
    expect(await page.locator('.log-row.outcome-check').count()).toBe(25);
    await page.click('button:has-text("Older rows")');
    await expect.poll(() => logRows().count()).toBe(50);
    expect((await logIds()).at(-1)).toBe(seededConsumeId(rows - 49 * 1_000));

    await page.selectOption('#log-outcome', 'failed');
    await expect.poll(async () => (await logIds())[0]).toBe(seededConsumeId(rows - 10));
    expect(await logRows().count()).toBe(25);
    expect(await page.locator('.log-row.outcome-failed').count()).toBe(25);
    expect([...limits]).toEqual(['25']);
    page.removeAllListeners('response');
    await screenshot(page, 'logs-100000-rows');
  });

  it('HTML and script in every text field are shown as text and never run: ticket, condition, action, secret, template, newsletter, log rows', async () => {
    // A ticket whose description, condition value and action fields carry HTML; opened in the editor only.
    await worker.registerTicket('xss-form', {
      description: INJECTED,
      condition: { method: 'POST', body: [{ key: 'note', operator: '=', value: INJECTED }] },
      actions: [{ act: 'req', exe: { url: 'https://example.com/hook', method: 'POST', headers: { 'X-Note': INJECTED }, data: { note: INJECTED } } }],
    });
    await openPage('tickets/xss-form/edit', '#ticket-id');
    await expect.poll(() => input(page, 'condition.body[0].value').inputValue()).toBe(INJECTED);
    expect(JSON.parse(await input(page, 'actions[0].exe.headers').inputValue())).toEqual({ 'X-Note': INJECTED });
    expect(JSON.parse(await input(page, 'actions[0].exe.data').inputValue())).toEqual({ note: INJECTED });
    expect(await input(page, 'description').inputValue()).toBe(INJECTED);
    await expectNothingInjected();

    // A consumed ticket: the log row, the request it kept and the action rows carry the HTML.
    await worker.registerTicket('xss-log', {
      description: INJECTED,
      condition: { method: 'POST' },
      actions: [{ act: 'resp', exe: { status: 200, body: { echo: '${body[html]}', note: INJECTED } } }],
    });
    const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/xss-log`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': INJECTED, 'x-note': INJECTED },
      body: JSON.stringify({ html: INJECTED }),
    });
    expect(consumed.status).toBe(200);
    await openPage('tickets/xss-log/logs', '#log-outcome');
    await expect.poll(async () => (await page.click('.filters button[type=submit]'), logRows().count()), { timeout: 20_000, interval: 500 }).toBe(1);
    await logRows().first().locator('.log-summary').click();
    await expect.poll(() => page.locator('.action-row').count()).toBe(1);
    expect(await page.textContent('.log-request')).toContain('<script id=\\"injected-script\\">');
    expect(await page.textContent('.action-row')).toContain('injected-img');
    await expectNothingInjected();
    await openPage('tickets', '#tickets');
    await expect.poll(() => page.locator('tr[data-ticket=xss-log] td.description').textContent()).toBe(INJECTED);
    await expectNothingInjected();

    // A Secret Key's destination with markup in its path (a destination holds no whitespace, so no attribute quoting).
    const destination = 'https://example.com/hook/<svg/id=injected-dest/onload=alert(4)>';
    await openPage('secrets', '#secret-form');
    await page.fill('#secret-name', 'xss-secret');
    await page.fill('#secret-value', 'sk-xss');
    await page.fill('#secret-destinations', destination);
    await page.click('#secret-form button[type=submit]');
    await expect.poll(() => page.textContent('#secrets-status')).toBe('Saved secret key xss-secret.');
    await expect.poll(() => page.locator('tr[data-secret=xss-secret] td[data-label=destinations]').textContent()).toBe(destination);
    await expectNothingInjected();

    // A mail template and a newsletter typed into their forms.
    await openPage('templates', '#template-form');
    await page.fill('#template-id', 'xss-template');
    for (const field of ['subject', 'html', 'text']) await page.fill(`#template-${field}`, INJECTED);
    await page.click('#template-form button[type=submit]');
    await expect.poll(() => page.textContent('#templates-status')).toBe('Saved mail template xss-template.');
    await expect.poll(() => page.locator('tr[data-template=xss-template] td.subject').textContent(), { timeout: 15_000 }).toBe(INJECTED);
    expect((await ownerCall('GET', '/mail-templates/xss-template')).json).toMatchObject({ subject: INJECTED, html: INJECTED, text: INJECTED });
    await page.locator('tr[data-template=xss-template] button', { hasText: 'Edit' }).click();
    expect(await page.inputValue('#template-html')).toBe(INJECTED);
    await expectNothingInjected();

    await openPage('newsletters', '#newsletter-form');
    await page.fill('#newsletter-group', 'public');
    await page.fill('#newsletter-message-id', 'xss-news');
    for (const field of ['subject', 'html', 'text']) await page.fill(`#newsletter-${field}`, INJECTED);
    await page.click('#newsletter-form button[type=submit]');
    // The row appears once the save and the list's reload have answered: a busy machine takes more than expect.poll's default second.
    await expect.poll(() => page.locator('tr[data-newsletter="public/xss-news"] td.subject').textContent(), { timeout: 15_000 }).toBe(INJECTED);
    expect((await ownerCall('GET', '/newsletters/public/xss-news')).json).toMatchObject({ subject: INJECTED, html: INJECTED, text: INJECTED });
    await expectNothingInjected();
  });
});
