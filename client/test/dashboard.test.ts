import type { Browser, Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { fieldError, input, jsonModeDefinition, screenshot, signIn, tabTo } from './helpers/dashboard-page.js';
import { json, startScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The owner dashboard (dashboard/, Preact, served by the Worker's static assets) in real Chromium
// against `wrangler dev`: one project and one browser for the whole file.
let worker: ProjectOnWorker;
let browser: Browser;
let page: Page;
const STRIPE_SECRET = 'whsec_dashboard_test_secret';
const INJECTED = '<img src=x onerror="window.__injected=1"><script>window.__injected=2</script><b>bold</b>';

beforeAll(async () => {
  [browser, worker] = await Promise.all([launchChromium(), createTestProject()]);
  await worker.putSecretKey('stripe', { value: STRIPE_SECRET });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, worker.url, worker.project.owner_key);
});

afterAll(async () => {
  await browser?.close();
});

const ownerCall = (method: string, path: string, body?: unknown) => worker.ownerCall(method, path, body);
const storedTicket = async (id: string) => (await ownerCall('GET', `/tickets?ticket_id=${id}`)).json.list[0];

/** Every request the page sends whose method and path match, counted while `run` runs. */
async function countRequests(method: string, pathPart: string, run: () => Promise<void>): Promise<number> {
  let count = 0;
  const listener = (request: { method(): string; url(): string }) => {
    if (request.method() === method && new URL(request.url()).pathname.includes(pathPart)) count++;
  };
  page.on('request', listener);
  try {
    await run();
  } finally {
    page.off('request', listener);
  }
  return count;
}

/** A fresh editor (a hash change alone would keep the editor of the test before). */
async function openNewTicket() {
  await page.goto(`${worker.url}/#/new`);
  await page.reload();
  await page.waitForSelector('#ticket-id');
}

/** Log rows reach the listing through the TicketDO's outbox: refresh the log page until `count` rows match. */
async function waitForLogRows(selector: string, count: number) {
  await expect
    .poll(async () => (await page.click('.filters button[type=submit]'), page.locator(selector).count()), { timeout: 20_000, interval: 500 })
    .toBe(count);
}

async function addAction(chainLegend: string, kind: string) {
  const chain = page.locator('fieldset', { has: page.locator(`> legend`, { hasText: new RegExp(`^${chainLegend}$`) }) }).last();
  await chain.locator('> .add-action select').selectOption(kind);
  await chain.locator('> .add-action button').click();
}

async function reviewAndSave() {
  await page.click('form button[type=submit]');
  await page.click('#confirm-save');
}

describe('the owner dashboard', () => {
  it('signs in with the owner key alone, refuses a wrong key, and an owner key refused later returns to sign-in with the reason', async () => {
    const other = await browser.newPage();
    try {
      await other.goto(`${worker.url}/`);
      await screenshot(other, 'signin');
      await other.fill('#owner-key', 'ok_not-the-key');
      await other.click('#signin button[type=submit]');
      await expect.poll(() => other.textContent('#signin-message')).toMatch(/refused this owner key \(401\)/);
      expect(await other.locator('#tickets').count()).toBe(0);

      await signIn(other, worker.url, worker.project.owner_key);
      expect(await other.textContent('header.top .project')).toBe('Client tests');
      // The key the tab holds stops working (as when the key is replaced): the next call answers 401.
      await other.evaluate(() => {
        const session = JSON.parse(sessionStorage.getItem('svc-owner') ?? '{}');
        sessionStorage.setItem('svc-owner', JSON.stringify({ ...session, owner_key: 'ok_replaced' }));
      });
      await other.reload();
      await expect.poll(() => other.textContent('#signin-message')).toMatch(/no longer accepts this owner key \(401\)/);
      expect(await other.evaluate(() => sessionStorage.getItem('svc-owner'))).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('a preset with a handshake shows its docs link, key format and handshake, and saves the signature with the handshake', async () => {
    await worker.putSecretKey('zoom', { value: 'NbSl-uPgSEqW_eHMFUdewA' });
    await openNewTicket();
    await page.fill('#ticket-id', 'zoom-form');
    await page.selectOption('#signature-preset', 'zoom');
    await input(page, 'condition.signature.secretName').fill('zoom');
    const facts = page.locator('#signature-preset-facts');
    expect(await facts.textContent()).toContain("the Secret Key holds the app's webhook Secret Token");
    expect(await facts.textContent()).toContain('endpoint.url_validation');
    expect(await facts.locator('a').getAttribute('href')).toBe('https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events');
    expect(await input(page, 'condition.handshake').inputValue()).toBe('zoom');
    await screenshot(page, 'editor-preset-handshake');
    await reviewAndSave();
    await expect.poll(() => page.textContent('#editor-status')).toBe('Saved zoom-form.');
    expect((await storedTicket('zoom-form')).condition).toMatchObject({ signature: { secretName: 'zoom', header: 'x-zm-signature' }, handshake: 'zoom' });
  });

  it('a token preset (GitLab) is a signature naming the Secret Key that holds the token (no header row), and the Svix preset reads svix-* headers', async () => {
    await openNewTicket();
    await page.selectOption('#signature-preset', 'gitlab');
    expect(await page.locator('#signature-preset').inputValue()).toBe('gitlab');
    expect(await page.locator('#signature-preset-facts').textContent()).toContain("the Secret Key holds the webhook's secret token");
    expect(await input(page, 'condition.headers[0].key').count()).toBe(0);
    await page.selectOption('#signature-preset', 'svix');
    expect(await page.locator('#signature-preset-facts').textContent()).toContain('whsec_');
    await page.locator('fieldset.signature summary').click();
    expect(await input(page, 'condition.signature.header').inputValue()).toBe('svix-signature');
  });

  it('the signature editor offers algorithm token, and encoding raw only with it; a token ticket opens, shows and saves unchanged', async () => {
    const optionsOf = (fieldPath: string) =>
      input(page, fieldPath)
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    await openNewTicket();
    await page.selectOption('#signature-preset', 'custom');
    expect(await optionsOf('condition.signature.algorithm')).toContain('token');
    await input(page, 'condition.signature.algorithm').selectOption('sha256');
    expect(await optionsOf('condition.signature.encoding')).toEqual(['', 'hex', 'base64']);
    await input(page, 'condition.signature.algorithm').selectOption('token');
    expect(await optionsOf('condition.signature.encoding')).toEqual(['', 'hex', 'base64', 'raw']);

    // A custom token header (no preset has it) registered through the API, then opened in the editor.
    await worker.putSecretKey('hook_token', { value: 'token-kept-as-a-secret-key' });
    const signature = { secretName: 'hook_token', header: 'X-Hook-Token', algorithm: 'token', encoding: 'raw', parts: ['${signature}'] };
    expect(
      (await ownerCall('PUT', '/tickets/token-form', { description: 'custom token header', condition: { method: 'POST', signature }, actions: [] })).status,
    ).toBe(201);
    const before = await storedTicket('token-form');
    await page.goto(`${worker.url}/#/tickets/token-form/edit`);
    await page.reload();
    await expect.poll(() => input(page, 'condition.signature.algorithm').inputValue()).toBe('token');
    expect(await page.locator('#signature-preset').inputValue()).toBe('custom');
    expect(await input(page, 'condition.signature.encoding').inputValue()).toBe('raw');
    expect(await input(page, 'condition.signature.header').inputValue()).toBe('X-Hook-Token');
    expect(await input(page, 'condition.signature.secretName').inputValue()).toBe('hook_token');
    await page.click('form button[type=submit]');
    await expect.poll(() => page.textContent('#plan-change')).toBe('none');
    await page.click('#confirm-save');
    await expect.poll(() => page.textContent('#editor-status')).toBe('Saved token-form.');
    const after = await storedTicket('token-form');
    expect(after.condition).toEqual(before.condition);
    expect(after.condition.signature).toMatchObject(signature);
    expect(JSON.stringify(after)).not.toContain('token-kept-as-a-secret-key');
  });

  it('registers a Stripe-preset ticket through the form, shows a stripe-signed consumption in the log with its action rows, and replays it', async () => {
    await openNewTicket();
    await page.fill('#ticket-id', 'stripe-form');
    await input(page, 'description').fill('Stripe payments from the form');
    await page.selectOption('#signature-preset', 'stripe');
    await input(page, 'condition.signature.secretName').fill('stripe');
    await page.click('text=Add body row');
    await input(page, 'condition.body[0].key').fill('type');
    await input(page, 'condition.body[0].operator').selectOption('=');
    await input(page, 'condition.body[0].value').fill('payment_intent.succeeded');
    await addAction('Actions', 'req');
    await input(page, 'actions[0].exe.url').fill(`${worker.url}/v1/health`);
    await screenshot(page, 'editor-form');
    await page.click('form button[type=submit]');
    expect(await page.textContent('#plan-change')).toBe('create');
    await page.click('#confirm-save');
    await expect.poll(() => page.textContent('#editor-status')).toBe('Saved stripe-form.');
    expect((await storedTicket('stripe-form')).condition).toMatchObject({
      signature: { secretName: 'stripe', header: 'Stripe-Signature', parts: ['t=${timestamp}', 'v1=${signature}'] },
      body: [{ key: 'type', operator: '=', value: 'payment_intent.succeeded' }],
    });

    const payload = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } });
    const header = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: STRIPE_SECRET, cryptoProvider: Stripe.createSubtleCryptoProvider() });
    const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/stripe-form`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      body: payload,
    });
    expect(consumed.status, await consumed.clone().text()).toBe(200);

    await page.goto(`${worker.url}/#/tickets/stripe-form/logs`);
    const row = page.locator('.log-row.outcome-ok').first();
    await waitForLogRows('.log-row.outcome-ok', 1);
    await row.locator('.log-summary').click();
    await expect.poll(() => row.locator('.action-row[data-act=req]').count()).toBe(1);
    expect(await row.locator('.action-row .received').textContent()).toContain('"ok": true');
    expect(await row.locator('.log-request').textContent()).toContain('payment_intent.succeeded');
    await screenshot(page, 'logs');
    await row.getByRole('button', { name: 'Re-check' }).click();
    await expect.poll(() => row.locator('.answer-body').textContent()).toContain('"replay_of"');
    expect(JSON.parse((await row.locator('.answer-body').textContent()) ?? '')).toMatchObject({ passed: true });
    await row.getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => row.locator('.answer h4').textContent()).toBe('Replay answered');
    await expect.poll(() => row.locator('.answer-body').textContent()).toContain('"replay_of"');
    expect(JSON.parse((await row.locator('.answer-body').textContent()) ?? '')).toMatchObject({ ok: true, ticket_id: 'stripe-form' });
    // The replay is a consumption marked replay_of; the re-check a dry run marked so.
    await waitForLogRows('.log-row.outcome-ok .replay', 1);
    await waitForLogRows('.log-row.outcome-check .replay', 1);

    // A tampered delivery fails its signature; its row asks why, and the answer names the step, never the secret.
    const tampered = await fetch(`${worker.url}/tp/${worker.project.service_id}/stripe-form`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      body: payload.replace('pi_1', 'pi_2'),
    });
    expect(tampered.status).toBe(400);
    await page.reload();
    await waitForLogRows('.log-row.outcome-failed', 1);
    const failed = page.locator('.log-row.outcome-failed').first();
    await failed.locator('.log-summary').click();
    await failed.getByRole('button', { name: 'Why did the signature fail?' }).click();
    await expect.poll(() => failed.locator('.answer h4').textContent()).toBe('Signature diagnosis answered');
    const diagnosis = JSON.parse((await failed.locator('.answer-body').textContent()) ?? '');
    expect(diagnosis).toMatchObject({
      signature: { verified: false, result: expect.stringContaining('HMAC'), trace: { source: { header: 'Stripe-Signature', found: true } } },
      presets: { secretName: 'stripe', matching: [] },
    });
    expect(JSON.stringify(diagnosis)).not.toContain(STRIPE_SECRET);
    expect(JSON.stringify(diagnosis)).not.toContain(header.split('v1=')[1]);
  });

  it("shows a refusal next to the input of the field it names: the page's own check and the registry's", async () => {
    await openNewTicket();
    await page.fill('#ticket-id', 'refused-url');
    await addAction('Actions', 'req');
    await input(page, 'actions[0].exe.url').fill('ftp://example.com/hook');
    const sent = await countRequests('POST', '/plan', async () => {
      await page.click('form button[type=submit]');
      await expect.poll(() => fieldError(page, 'actions[0].exe.url').textContent()).toMatch(/^INVALID_PARAMETER: actions\[0\]\.exe\.url: must start with http/);
    });
    expect(sent).toBe(0);
    expect(await input(page, 'actions[0].exe.url').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-path'))).toBe('actions[0].exe.url');

    // Only the registry knows which Secret Keys exist: its refusal (from the plan) lands on secretName.
    await input(page, 'actions[0].exe.url').fill('https://example.com/hook');
    await input(page, 'actions[0].exe.secretName').fill('NOT_STORED');
    await page.click('form button[type=submit]');
    await expect
      .poll(() => fieldError(page, 'actions[0].exe.secretName').textContent())
      .toMatch(/No Secret Key named "NOT_STORED"|no Secret Key named "NOT_STORED"/);
    expect(await fieldError(page, 'actions[0].exe.url').count()).toBe(0);
    expect((await ownerCall('GET', '/tickets?ticket_id=refused-url')).json.list).toEqual([]);
  });

  it('keeps the definition unchanged through JSON → form → JSON for every action kind, and a form edit shows in JSON mode', async () => {
    const definition = {
      description: 'every kind',
      count: 5,
      limit_per_user: 2,
      condition: {
        method: 'POST',
        ip: { operator: '=', value: ['203.0.113.9'] },
        headers: [{ key: 'X-Kind', operator: '=', value: 'all' }],
        body: [
          { key: 'n', operator: '>=', value: 1 },
          { key: 'who', placeholder: 'WHO' },
          { key: 'flag', operator: '=', value: '5' },
        ],
        params: [{ key: 'tag', operator: '!=', value: null }],
        user: [{ key: 'plan', operator: '=', value: ['pro', 'team'] }],
        record_access: '${body[record]}',
        return200: true,
      },
      actions: [
        {
          act: 'req',
          exe: {
            url: 'https://api.example.com/orders/${placeholder[WHO]}',
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            data: { who: '${placeholder[WHO]}', n: '${body[n]}' },
            params: { page: 1 },
            actions: [
              {
                act: 'cond',
                exe: {
                  response: [
                    { key: 'status', operator: '=', value: 200 },
                    { key: 'body[id]', placeholder: 'ID' },
                  ],
                },
              },
              { act: 'acsr', exe: { record_id: '${placeholder[ID]}', user_id: ['u1', 'u2'] } },
            ],
          },
          err: [{ act: 'resp', exe: { status: 502, body: { failed: '${error[message]}' }, resume: 'stop' } }],
          retry: true,
        },
        {
          act: 'pstr',
          exe: {
            table: { name: 'orders', access_group: 'admin' },
            unique_id: '${placeholder[WHO]}',
            data: '${body}',
            tags: ['a'],
            readonly: true,
            user_id: '${user[user_id]}',
          },
        },
        { act: 'acsg', exe: { group: 'admin', user_id: '${user[user_id]}' } },
        { act: 'mail', exe: { template: 'welcome', to: '${user[email]}', placeholders: { name: 'Ada', n: 3 } } },
        { act: 'nlsd', exe: { group: 'public', newsletter: 'weekly' } },
        { act: 'resp', exe: { status: '${placeholder[STATUS]}', body: 'done', resume: '10m' } },
      ],
    };
    await openNewTicket();
    await page.click('button:has-text("JSON mode")');
    await page.fill('#definition-json', JSON.stringify(definition, null, 2));
    await expect.poll(() => page.textContent('#json-issue')).toMatch(/^The registry's rules find nothing to refuse/);
    await screenshot(page, 'editor-json');
    await page.click('button:has-text("Form mode")');
    // The form shows each kind's fields.
    expect(await input(page, 'actions[0].exe.url').inputValue()).toBe(definition.actions[0].exe.url);
    expect(await input(page, 'actions[0].exe.actions[0].exe.response[1].key').inputValue()).toBe('body[id]');
    expect(await input(page, 'actions[0].exe.actions[1].exe.user_id').inputValue()).toBe('["u1","u2"]');
    expect(await input(page, 'actions[0].err[0].exe.status').inputValue()).toBe('502');
    expect(await input(page, 'actions[0].retry').isChecked()).toBe(true);
    expect(await input(page, 'actions[1].exe.table.access_group').inputValue()).toBe('admin');
    expect(await input(page, 'actions[3].exe.to').inputValue()).toBe('${user[email]}');
    expect(await input(page, 'actions[4].exe.newsletter').inputValue()).toBe('weekly');
    expect(await input(page, 'actions[5].exe.resume').inputValue()).toBe('10m');
    expect(await input(page, 'condition.body[2].value').inputValue()).toBe('"5"');
    await page.click('button:has-text("JSON mode")');
    expect(await jsonModeDefinition(page)).toEqual(definition);

    await page.click('button:has-text("Form mode")');
    await input(page, 'actions[2].exe.group').fill('7');
    await page.click('button:has-text("JSON mode")');
    expect(await jsonModeDefinition(page)).toEqual({
      ...definition,
      actions: definition.actions.map((a, i) => (i === 2 ? { act: 'acsg', exe: { group: 7, user_id: '${user[user_id]}' } } : a)),
    });
  });

  it("JSON mode shows the registry's issue at its field path, and refuses a 2 MB paste before sending", async () => {
    await openNewTicket();
    await page.fill('#ticket-id', 'json-issues');
    await page.click('button:has-text("JSON mode")');
    await page.fill('#definition-json', JSON.stringify({ actions: [{ act: 'mail', exe: { template: 'welcome', to: 'not-an-address' } }], colour: 'red' }));
    await expect.poll(() => page.textContent('#json-issue')).toMatch(/^At colour: colour: unknown key/);
    await page.fill('#definition-json', JSON.stringify({ actions: [{ act: 'mail', exe: { template: 'welcome', to: 'not-an-address' } }] }));
    await expect.poll(() => page.textContent('#json-issue')).toMatch(/^At actions\[0\]\.exe\.to: actions\[0\]\.exe\.to: must be one e-mail address/);

    const huge = JSON.stringify({ description: 'x'.repeat(2 * 1024 * 1024), actions: [] });
    const sent = await countRequests('PUT', '/tickets/', async () => {
      await page.fill('#definition-json', huge);
      await page.click('form button[type=submit]');
      await expect.poll(() => page.textContent('#json-issue')).toMatch(/^The definition is 2\.0 MiB; the registry takes at most 1 MiB .* Nothing was sent\.$/);
    });
    expect(sent).toBe(0);
  });

  it('a network failure mid-save shows a message and keeps the edit; saving again works', async () => {
    await openNewTicket();
    await page.fill('#ticket-id', 'offline-save');
    await input(page, 'description').fill('kept through a failure');
    await page.click('form button[type=submit]');
    await page.waitForSelector('#confirm-save');
    await page.route('**/tickets/offline-save', (route) => (route.request().method() === 'PUT' ? route.abort('internetdisconnected') : route.continue()));
    await page.click('#confirm-save');
    await expect
      .poll(() => page.textContent('#editor-status'))
      .toMatch(/could not be reached \(network failure\): the ticket was not saved\. Your edit is kept/);
    expect(await input(page, 'description').inputValue()).toBe('kept through a failure');
    await page.unroute('**/tickets/offline-save');
    await page.click('#confirm-save');
    await expect.poll(() => page.textContent('#editor-status')).toBe('Saved offline-save.');
    expect((await storedTicket('offline-save')).description).toBe('kept through a failure');
  });

  it('registers a simple ticket with the keyboard alone (Tab, typing, Enter)', async () => {
    await page.goto(`${worker.url}/#/tickets`);
    await page.waitForSelector('#tickets');
    await tabTo(page, 'a[href="#/new"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#ticket-id');
    await tabTo(page, '#ticket-id');
    await page.keyboard.type('by-keyboard');
    await tabTo(page, '[data-path="description"]');
    await page.keyboard.type('Typed, never clicked');
    await tabTo(page, '.add-action button');
    await page.keyboard.press('Enter'); // the default kind: req
    await tabTo(page, '[data-path="actions[0].exe.url"]');
    await page.keyboard.type('https://example.com/hook');
    await tabTo(page, 'form button[type=submit]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#confirm-save');
    await tabTo(page, '#confirm-save');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#editor-status')).toBe('Saved by-keyboard.');
    expect(await storedTicket('by-keyboard')).toMatchObject({
      description: 'Typed, never clicked',
      actions: [{ act: 'req', exe: { url: 'https://example.com/hook' } }],
    });
  });

  it('shows HTML and script from a description, a log row and a kept request as text, never running them', async () => {
    await worker.registerTicket('injected', {
      description: INJECTED,
      condition: { method: 'POST' },
      actions: [{ act: 'resp', exe: { body: { echo: '${body[html]}' } } }],
    });
    const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/injected`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': INJECTED },
      body: JSON.stringify({ html: INJECTED }),
    });
    expect(consumed.status).toBe(200);
    await page.goto(`${worker.url}/#/tickets`);
    const description = page.locator('tr[data-ticket=injected] td.description');
    await expect.poll(() => description.textContent()).toBe(INJECTED);
    await expect.poll(() => page.locator('td.rate', { hasText: '…' }).count()).toBe(0);
    expect(await description.locator('img, script, b').count()).toBe(0);
    await screenshot(page, 'tickets');

    await page.goto(`${worker.url}/#/tickets/injected/logs`);
    const row = page.locator('.log-row').first();
    await waitForLogRows('.log-row', 1);
    await row.locator('.log-summary').click();
    await expect.poll(() => row.locator('.log-request').textContent()).toContain('<script>');
    expect(await row.locator('.log-details').locator('img, script, b').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
  });

  it('a legacy ticket opens with its req answer references moved under [body] and asks to confirm on save', async () => {
    await worker.importLegacyTicket('legacy-order', {
      description: 'Imported',
      condition: { method: 'POST' },
      actions: [
        {
          act: 'req',
          exe: { url: 'https://fulfil.example.com/orders', method: 'POST', actions: [{ act: 'resp', exe: { body: { queued: '${response[method]}' } } }] },
          condition: [{ key: 'method', operator: '=', value: 'POST' }],
        },
      ],
    });
    await page.goto(`${worker.url}/#/tickets/legacy-order/edit`);
    await expect.poll(() => page.locator('.notice').count()).toBe(1);
    expect(await input(page, 'actions[0].exe.actions[0].exe.response[0].key').inputValue()).toBe('body[method]');
    expect(JSON.parse(await input(page, 'actions[0].exe.actions[1].exe.body').inputValue())).toEqual({ queued: '${response[body][method]}' });
    await page.click('form button[type=submit]');
    await page.click('#confirm-save');
    await expect.poll(() => page.textContent('#editor-status')).toMatch(/^Confirm the references moved under \[body\]/);
    expect((await storedTicket('legacy-order')).legacy).toBe(true);
    await page.check('#confirm-legacy');
    await page.click('#confirm-save');
    await expect.poll(() => page.textContent('#editor-status')).toBe('Saved legacy-order.');
    const stored = await storedTicket('legacy-order');
    expect(stored.legacy ?? false).toBe(false);
    expect(stored.actions[0].exe.actions[1].exe.body).toEqual({ queued: '${response[body][method]}' });
  });

  it('filters the log by outcome and clears it after a confirmation', async () => {
    await worker.registerTicket('filtered', { condition: { method: 'POST', body: [{ key: 'ok', operator: '=', value: true }] }, actions: [] });
    for (const ok of [true, false]) {
      await fetch(`${worker.url}/tp/${worker.project.service_id}/filtered`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ok }),
      });
    }
    await page.goto(`${worker.url}/#/tickets/filtered/logs`);
    await waitForLogRows('.log-row', 2);
    // A time range after both consumptions lists none of them.
    await page.fill('#log-from', '2999-01-01T00:00:00');
    await waitForLogRows('.log-row', 0);
    await page.fill('#log-from', '');
    await waitForLogRows('.log-row', 2);
    await page.selectOption('#log-outcome', 'failed');
    await waitForLogRows('.log-row', 1);
    expect(await page.locator('.log-row.outcome-failed').count()).toBe(1);
    await page.click('button:has-text("Clear log")');
    await page.click('dialog button:has-text("Cancel")');
    expect(await page.locator('.log-row').count()).toBe(1);
    await page.click('button:has-text("Clear log")');
    await page.click('dialog button.danger');
    await expect.poll(() => page.textContent('#logs-status')).toMatch(/.+/);
    await page.selectOption('#log-outcome', '');
    await waitForLogRows('.log-row', 0);
  });

  it('marks a duplicate delivery (extension: idempotency) with the consumption it repeats, and the first one without', async () => {
    await worker.registerTicket('deduplicated', { condition: { method: 'POST' }, idempotency: { key: '${headers[x-event-id]}' }, actions: [] });
    const deliver = () =>
      fetch(`${worker.url}/tp/${worker.project.service_id}/deduplicated`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-event-id': 'evt_dashboard_1' },
        body: '{}',
      });
    const first = await deliver();
    expect(first.status, await first.clone().text()).toBe(200);
    expect((await deliver()).status).toBe(200);
    await page.goto(`${worker.url}/#/tickets/deduplicated/logs`);
    await waitForLogRows('.log-row', 2);
    const rows = page.locator('.log-row');
    // Newest first: the duplicate, naming the first consumption's id.
    const firstId = await rows.nth(1).getAttribute('data-consume-id');
    expect(await rows.nth(0).locator('.duplicate').textContent()).toBe(` duplicate of ${firstId}`);
    expect(await rows.nth(1).locator('.duplicate').count()).toBe(0);
  });

  it('shows a run after the answer waiting for its next scheduled attempt (extension: retry_schedule), with its attempts so far', async () => {
    const down = await startScriptedServer();
    down.handle((_req, res) => json(res, 503, { error: 'down for maintenance' }));
    try {
      await worker.registerTicket('scheduled', {
        retry_schedule: { delays: ['1h'] },
        actions: [
          { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
          { act: 'req', exe: { url: `${down.url}/hook`, method: 'POST' } },
        ],
      });
      const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/scheduled`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(consumed.status, await consumed.clone().text()).toBe(200);
      await page.goto(`${worker.url}/#/tickets/scheduled/logs`);
      const schedule = page.locator('.log-row .schedule');
      await expect
        .poll(async () => (await page.click('.filters button[type=submit]'), (await schedule.count()) > 0 ? schedule.first().textContent() : null), {
          timeout: 20_000,
          interval: 500,
        })
        .toMatch(/^ 1 attempt, retrying: next attempt \d/);
      expect(down.requests.filter((request) => request.url === '/hook')).toHaveLength(1);
    } finally {
      // Its next attempt would come in an hour, in the Worker the other files share.
      await ownerCall('DELETE', '/tickets/scheduled');
      await down.close();
    }
  });

  it('live refresh lists a consumption made after the page opened, without a click, and its action rows show the key as ${CLIENT_SECRET}', async () => {
    const KEY = 'sk_live_dashboard_9f3e41';
    await worker.putSecretKey('api', { value: KEY });
    await worker.registerTicket('live', {
      actions: [{ act: 'req', exe: { url: `${worker.url}/v1/health`, method: 'GET', secretName: 'api', headers: { 'x-api-key': '${CLIENT_SECRET}' } } }],
    });
    await page.goto(`${worker.url}/#/tickets/live/logs`);
    await waitForLogRows('.log-row', 0);
    await page.check('#log-live');
    const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/live`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(consumed.status, await consumed.clone().text()).toBe(200);
    // No click on Refresh: the live refresh brings the row in.
    await expect.poll(() => page.locator('.log-row.outcome-ok').count(), { timeout: 20_000, interval: 250 }).toBe(1);
    await page.uncheck('#log-live');
    const row = page.locator('.log-row.outcome-ok').first();
    await row.locator('.log-summary').click();
    await expect.poll(() => row.locator('.action-row[data-act=req]').count()).toBe(1);
    expect(await row.locator('.action-row[data-act=req]').textContent()).toContain('${CLIENT_SECRET}');
    expect(await page.content()).not.toContain(KEY);
  });

  it('shows when a ticket is being limited (issue 26 item 6): refusals and counted failures per minute, and the summary of what was counted', async () => {
    expect((await worker.ownerCall('PATCH', '/settings', { flood_limits: { tickets: { besieged: 50 } } })).status).toBe(200);
    await worker.registerTicket('besieged', { condition: { method: 'POST' }, actions: [] });
    const get = (ip: string) =>
      fetch(`${worker.url}/tg/${worker.project.service_id}/besieged`, { headers: { 'cf-connecting-ip': ip } }).then((res) => res.status);
    // 240 failures from 6 addresses (under the limit of 50 each every 10 s), then one address past it.
    const failed = await Promise.all(Array.from({ length: 240 }, (_, i) => get(`192.0.2.${100 + (i % 6)}`)));
    expect(failed.filter((s) => s === 400).length).toBeGreaterThan(200);
    let refused = 0;
    for (let i = 0; i < 120; i++) if ((await get('192.0.2.120')) === 429) refused++;
    expect(refused).toBeGreaterThanOrEqual(20);

    await page.goto(`${worker.url}/#/tickets/besieged/logs`);
    await page.waitForSelector('#flood');
    const sum = (label: string) => page.locator(`#flood td[data-label=${label}]`).evaluateAll((cells) => cells.reduce((n, c) => n + Number(c.textContent), 0));
    await expect.poll(() => sum('limited'), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(await sum('sampled')).toBeGreaterThanOrEqual(1);
    await page.selectOption('#log-outcome', 'failed');
    // The summary lists at its minute's place: when the flood ran into a new minute, that minute's whole entries
    // come before it (newest first), so older pages are read until it shows.
    const summary = page.locator('.log-row .sampled').first();
    const older = page.locator('button', { hasText: 'Older rows' });
    await expect
      .poll(
        async () => {
          if ((await summary.count()) > 0) return summary.textContent();
          if (await older.isVisible()) await older.click();
          return null;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toMatch(/^ \d+ more failed with \w+/);
    await screenshot(page, 'logs-flood');
  });

  it('lists Secret Keys without their values, stores one write-only and deletes one after a confirmation', async () => {
    await page.goto(`${worker.url}/#/secrets`);
    await expect.poll(() => page.locator('tr[data-secret=stripe]').count()).toBe(1);
    await page.fill('#secret-name', 'openai');
    await page.fill('#secret-value', 'sk-very-secret-value');
    expect(await page.getAttribute('#secret-value', 'type')).toBe('password');
    await page.fill('#secret-destinations', 'https://api.openai.com/v1');
    await page.check('#secret-locked');
    await page.fill('#secret-per_caller_per_minute', '10');
    await page.click('#secret-form button[type=submit]');
    await expect.poll(() => page.textContent('#secrets-status')).toBe('Saved secret key openai.');
    await expect.poll(() => page.locator('tr[data-secret=openai]').textContent()).toContain('https://api.openai.com/v1');
    expect(await page.content()).not.toContain('sk-very-secret-value');
    expect(await page.content()).not.toContain(STRIPE_SECRET);
    await screenshot(page, 'secrets');
    await page.click('button[aria-label="Delete openai"]');
    await page.click('dialog button.danger');
    await expect.poll(() => page.locator('tr[data-secret=openai]').count()).toBe(0);
    expect((await ownerCall('GET', '/secrets/openai')).status).toBe(404);
  });

  it("lists a ticket's dead letters (extension) with the failed action; Replay after the destination recovers and Delete take them off; a bulk replay counted, cancelled and followed", async () => {
    const flaky = await startScriptedServer();
    let failing = true;
    flaky.handle((_req, res) => (failing ? json(res, 500, { error: 'down' }) : json(res, 200, { ok: true })));
    const hookCalls = () => flaky.requests.filter((request) => request.url === '/hook').length;
    try {
      await worker.registerTicket('dead-lettered', {
        retry_schedule: { delays: ['1s'], attempts: 2 },
        actions: [
          { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
          { act: 'req', exe: { url: `${flaky.url}/hook`, method: 'POST' } },
        ],
      });
      for (let i = 0; i < 2; i++) {
        const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/dead-lettered`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(consumed.status, await consumed.clone().text()).toBe(200);
      }
      // Two attempts a second apart, then each run is a dead letter.
      let ids: string[] = [];
      const until = Date.now() + 20_000;
      while (ids.length < 2) {
        if (Date.now() > until) throw new Error('the dead letters were never listed');
        await new Promise((resolve) => setTimeout(resolve, 300));
        ids = ((await ownerCall('GET', '/tickets/dead-lettered/dead-letters')).json.list ?? []).map((item: { id: string }) => item.id);
      }
      await page.goto(`${worker.url}/#/tickets/dead-lettered/logs`);
      const [replayed, deleted] = ids.map((id) => page.locator(`.ticket-dead-letters tbody tr[data-id="${id}"]`));
      await expect.poll(() => replayed.locator('td').count()).toBe(7);
      const texts = await replayed.locator('td').allTextContents();
      expect(texts.slice(1, 6)).toEqual(['answered 408 or 5xx', '500', '2', 'req at actions[1]', `req ${flaky.url}/hook`]);
      await screenshot(page, 'ticket-dead-letters');
      // At a phone width the rows are cards and the page does not scroll sideways.
      await page.setViewportSize({ width: 375, height: 800 });
      try {
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
        await screenshot(page, 'ticket-dead-letters-phone');
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }

      await page.check('#bulk-dead-letters');
      expect(await page.locator('#bulk-outcome').isDisabled()).toBe(true);
      await page.click('.bulk-replay button:has-text("Count")');
      await expect.poll(() => page.textContent('#bulk-replay-status')).toBe('2 entries match (a replay takes at most 100000).');

      // Replay all asks first; cancelling it runs nothing.
      await replayed.getByRole('button', { name: 'Replay all' }).click();
      await page.click('dialog button:has-text("Cancel")');
      expect(hookCalls()).toBe(4);

      failing = false;
      await replayed.getByRole('button', { name: 'Replay', exact: true }).click();
      await expect
        .poll(() => page.textContent('#ticket-dead-letters-status'))
        .toBe(`Replayed ${ids[0]} from its failed action: answered 200; it is off the list.`);
      await expect.poll(() => replayed.count()).toBe(0);
      expect(hookCalls()).toBe(5);
      await deleted.getByRole('button', { name: 'Delete' }).click();
      await page.click('dialog button.danger');
      await expect.poll(() => page.textContent('#ticket-dead-letters-status')).toBe('SUCCESS: The dead letter was deleted.');
      await expect.poll(() => page.locator('.ticket-dead-letters').textContent()).toContain('No dead letter.');
      expect(hookCalls()).toBe(5);

      // Every consumption at one a minute: still running when Cancel replay stops it.
      await page.uncheck('#bulk-dead-letters');
      await page.selectOption('#bulk-outcome', 'any');
      await page.fill('#bulk-per-minute', '1');
      await page.click('.bulk-replay button:has-text("Start")');
      await expect.poll(() => page.textContent('#bulk-replay-progress')).toMatch(/^Replay \d+: \d+\/\d+ done, .* running\.$/);
      await page.click('.bulk-replay button:has-text("Cancel replay")');
      await expect.poll(() => page.textContent('#bulk-replay-progress')).toMatch(/ cancelled\.$/);
      expect(await page.locator('.bulk-replay button:has-text("Cancel replay")').count()).toBe(0);
      // At 600 a minute its progress is read every 2 s until it ends.
      await page.fill('#bulk-per-minute', '600');
      await page.click('.bulk-replay button:has-text("Start")');
      await expect.poll(() => page.textContent('#bulk-replay-progress')).toMatch(/^Replay \d+: (\d+)\/\1 done, .* finished\.$/);
    } finally {
      await ownerCall('DELETE', '/tickets/dead-lettered');
      await flaky.close();
    }
  });

  it('stays readable at a phone width (375 px): no page-wide horizontal scroll', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      for (const route of ['#/tickets', '#/new', '#/secrets']) {
        await page.goto(`${worker.url}/${route}`);
        await page.waitForSelector('main h2');
        const wider = await page.evaluate(() =>
          Array.from(document.querySelectorAll('body *'))
            .filter((el) => el.getBoundingClientRect().right > 375 && !el.closest('.table-wrap'))
            .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
        );
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${route}: ${wider.slice(0, 5).join(' ')}`).toBeLessThanOrEqual(375);
      }
      await page.goto(`${worker.url}/#/tickets`);
      await page.waitForSelector('tr[data-ticket]');
      await expect.poll(() => page.locator('td.rate', { hasText: '…' }).count()).toBe(0);
      await screenshot(page, 'tickets-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
