import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { screenshot, signIn } from './helpers/dashboard-page.js';
import { startStreamDestination } from './helpers/stream-destination.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The dashboard's Forwarding page in real Chromium against `wrangler dev` (one project for the file): a
// visitor's direct and streamed requests to a loopback destination in this process, listed and opened.
let worker: ProjectOnWorker;
let browser: Browser;
let page: Page;
let destination: Awaited<ReturnType<typeof startStreamDestination>>;
const SECRET = 'sk-dashboard-forward-7Tq9';
const INJECTED = '<img src=x onerror="window.__injected=1"><script>window.__injected=2</script>';
const PIECES = ['data: first\n\n', 'data: second\n\n', 'data: [DONE]\n\n'];
const ids: { direct?: string; streamed?: string } = {};

/** A forwarded request as a visitor (no credential), as a browser of the owner's site would send it. */
async function forwardAsVisitor(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'dashboard-forward-visitor' },
    body: JSON.stringify(body),
  });
}

async function ownerList(): Promise<any[]> {
  const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward/requests`, {
    headers: { authorization: `Bearer ${worker.project.owner_key}` },
  });
  return ((await res.json()) as { list: any[] }).list;
}

beforeAll(async () => {
  [browser, worker, destination] = await Promise.all([launchChromium(), createTestProject(), startStreamDestination()]);
  await worker.putSecretKey('dest', { value: SECRET });
  destination.script('/stream', { pieces: PIECES, gapMs: 20 });
  const direct = await forwardAsVisitor({
    url: `${destination.url}/direct?key=$CLIENT_SECRET`,
    method: 'POST',
    secretName: 'dest',
    headers: { 'x-key': '$CLIENT_SECRET' },
    data: { note: INJECTED },
  });
  expect(direct.status).toBe(200);
  ids.direct = direct.headers.get('x-svc-request-id') ?? undefined;
  const streamed = await forwardAsVisitor({ url: `${destination.url}/stream`, method: 'POST', stream: true, data: { ask: 'stream' } });
  expect(streamed.status).toBe(200);
  ids.streamed = ((await streamed.json()) as { id: string }).id;
  // Both reach the history (the direct one in a batch, the streamed one through its queue's outbox), settled.
  const until = Date.now() + 20_000;
  while ((await ownerList()).filter((item) => item.status === 'resolved').length < 2) {
    if (Date.now() > until) throw new Error('the two requests never reached the history settled');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, worker.url, worker.project.owner_key);
});

afterAll(async () => {
  await browser?.close();
  await destination?.close();
});

const row = (id: string | undefined) => page.locator(`.forward-row[data-request-id="${id}"]`);

describe('the Forwarding page', () => {
  it("lists a visitor's direct and streamed requests, newest first, with status code and caller", async () => {
    await page.click('nav a[href="#/forwarding"]');
    await page.waitForSelector('.forward-row');
    await expect.poll(() => page.locator('.forward-row').count()).toBe(2);
    const order = await page.locator('.forward-row').evaluateAll((rows) => rows.map((el) => el.getAttribute('data-request-id')));
    expect(order).toEqual([ids.streamed, ids.direct]);
    await expect.poll(() => row(ids.direct).locator('.log-summary').textContent()).toContain('→ 200');
    expect(await row(ids.direct).locator('.caller').textContent()).toMatch(/^visitor:/);
    expect(await row(ids.streamed).locator('.log-summary').textContent()).toContain('streamed');
  });

  it('opens the direct request to its url, headers and bodies as written with $CLIENT_SECRET, as text, never the key', async () => {
    await row(ids.direct).locator('.log-summary').click();
    const details = row(ids.direct).locator('.log-details');
    await details.locator('.forward-request-line').waitFor();
    expect(await details.locator('.forward-request-line').textContent()).toBe(`POST ${destination.url}/direct?key=$CLIENT_SECRET`);
    expect(JSON.parse((await details.locator('.forward-headers').textContent()) ?? '')).toEqual({ 'x-key': '$CLIENT_SECRET' });
    expect(JSON.parse((await details.locator('.forward-request-body').textContent()) ?? '')).toEqual({ note: INJECTED });
    expect(JSON.parse((await details.locator('.forward-response-body').textContent()) ?? '')).toEqual({ ok: true });
    expect(await details.locator('.forward-status').textContent()).toContain('status code 200');
    for (const timing of ['.forward-created', '.forward-executed', '.forward-responded']) {
      expect(await details.locator(timing).textContent()).not.toBe('not yet');
    }
    // Shown as text: no element came from the payload and none of its scripts ran.
    expect(await details.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();
    expect(await page.content()).not.toContain(SECRET);
    // The destination did receive the key: the page shows the token where it went.
    expect(destination.requests.some((request) => request.url.includes(SECRET))).toBe(true);
  });

  it('opens the streamed request to its stored text and timings', async () => {
    await row(ids.streamed).locator('.log-summary').click();
    const details = row(ids.streamed).locator('.log-details');
    await details.locator('.forward-stream-text').waitFor();
    expect(await details.locator('.forward-stream-text').textContent()).toBe(PIECES.join(''));
    expect(JSON.parse((await details.locator('.forward-request-body').textContent()) ?? '')).toEqual({ ask: 'stream' });
    expect(JSON.parse((await details.locator('.forward-headers').textContent()) ?? '')).toEqual({});
    expect(await details.locator('.forward-responded').textContent()).not.toBe('not yet');
    await screenshot(page, 'forward-streamed-request');
  });

  it('filters by stream and by caller, and a caller with no request shows none', async () => {
    await page.selectOption('#fwd-stream', 'true');
    await page.click('.filters button[type=submit]');
    await expect.poll(() => page.locator('.forward-row').count()).toBe(1);
    expect(await page.locator('.forward-row').getAttribute('data-request-id')).toBe(ids.streamed);
    await page.selectOption('#fwd-stream', '');
    await page.fill('#fwd-caller', 'visitor:nobody');
    await page.click('.filters button[type=submit]');
    await expect.poll(() => page.locator('.forward-row').count()).toBe(0);
    await page.fill('#fwd-caller', 'a\u0001b');
    await page.click('.filters button[type=submit]');
    await expect.poll(() => page.locator('#forward-status').textContent()).toMatch(/INVALID_PARAMETER.*caller/);
  });

  it('pages: 25 requests at first, the older ones after "Older requests", each once', async () => {
    const more = await Promise.all(
      Array.from({ length: 26 }, (_, n) => forwardAsVisitor({ url: `${destination.url}/page/${n}`, method: 'POST', data: { n } })),
    );
    expect(more.map((res) => res.status)).toEqual(more.map(() => 200));
    const until = Date.now() + 20_000;
    while ((await ownerList()).length < 28) {
      if (Date.now() > until) throw new Error('the 26 requests never reached the history');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await page.fill('#fwd-caller', '');
    await page.click('.filters button[type=submit]');
    await expect.poll(() => page.locator('.forward-row').count()).toBe(25);
    await page.click('button:has-text("Older requests")');
    await expect.poll(() => page.locator('.forward-row').count()).toBe(28);
    const shown = await page.locator('.forward-row').evaluateAll((rows) => rows.map((el) => el.getAttribute('data-request-id')));
    expect(new Set(shown).size).toBe(28);
    expect(shown.slice(-2)).toEqual([ids.streamed, ids.direct]);
    expect(await page.locator('button:has-text("Older requests")').count()).toBe(0);
  });
});

describe('a request sent with retry (extension) on the Forwarding page', () => {
  it('shows the 429 a settled request waited out, and when a waiting one is sent next', async () => {
    const busy = { pieces: ['{"error":"slow down"}'], status: 429, times: 1 };
    destination.script('/busy-once', { ...busy, headers: { 'retry-after': '1' } });
    destination.script('/busy-long', { ...busy, headers: { 'retry-after': '3600' } });
    const sent = await Promise.all([
      forwardAsVisitor({ url: `${destination.url}/busy-once`, method: 'POST', queue: 'dash-retry-once', retry: true }),
      forwardAsVisitor({ url: `${destination.url}/busy-long`, method: 'POST', queue: 'dash-retry-long', retry: true }),
    ]);
    const [once, long] = (await Promise.all(sent.map((res) => res.json()))) as { id: string }[];
    try {
      const until = Date.now() + 20_000;
      const settled = () => ownerList().then((list) => list.find((item) => item.id === once.id)?.status === 'resolved');
      const waiting = () => ownerList().then((list) => list.find((item) => item.id === long.id)?.next_attempt_at !== undefined);
      while (!((await settled()) && (await waiting()))) {
        if (Date.now() > until) throw new Error('the two retried requests never reached the history, settled and waiting');
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      await page.click('nav a[href="#/forwarding"]');
      await page.click('.filters button[type=submit]');
      await expect.poll(() => row(long.id).locator('.log-summary').textContent()).toMatch(/waiting out a 429 until/);
      await row(long.id).locator('.log-summary').click();
      await expect.poll(() => row(long.id).locator('.forward-next-attempt').count()).toBe(1);
      expect(await row(long.id).locator('.forward-next-attempt').textContent()).not.toBe('never');

      await row(once.id).locator('.log-summary').click();
      await expect.poll(() => row(once.id).locator('.forward-attempts li').count()).toBe(1);
      expect(await row(once.id).locator('.forward-attempts li').textContent()).toMatch(/: 429, waited 1 s$/);
      expect(await row(once.id).locator('.forward-status').textContent()).toContain('status code 200');
      expect(await row(once.id).locator('.forward-next-attempt').count()).toBe(0);
    } finally {
      // The waiting request would otherwise wait an hour in the shared Worker.
      const address = new URLSearchParams({ id: long.id, url: `${destination.url}/busy-long`, method: 'POST' });
      await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward/request?${address}`, {
        method: 'DELETE',
        headers: { 'user-agent': 'dashboard-forward-visitor' },
      });
    }
  });
});

describe('paused destinations (extension) on the Forwarding page', () => {
  it('lists a destination whose circuit five failures in a row opened, with its caller and failures', async () => {
    destination.script('/failing', { pieces: ['{"error":"down"}'], status: 500 });
    // A caller of its own (its own queue object, so its own circuits): the other tests' requests are not held.
    for (let n = 0; n < 5; n++) {
      const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'dashboard-circuit-visitor' },
        body: JSON.stringify({ url: `${destination.url}/failing`, method: 'POST', queue: 'dash-circuit', retry: true }),
      });
      expect(res.status).toBe(200);
    }
    const paused = async () => {
      const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/destinations`, {
        headers: { authorization: `Bearer ${worker.project.owner_key}` },
      });
      return ((await res.json()) as { list: any[] }).list;
    };
    const until = Date.now() + 20_000;
    while ((await paused()).length === 0) {
      if (Date.now() > until) throw new Error('the circuit never opened');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await page.click('nav a[href="#/forwarding"]');
    await page.click('.paused-destinations button:has-text("Refresh")');
    const cells = page.locator('.paused-destinations tbody tr td');
    await expect.poll(() => cells.count()).toBe(6);
    const texts = await cells.allTextContents();
    expect(texts.slice(0, 4)).toEqual([new URL(destination.url).origin, 'open (waiting)', expect.stringMatching(/^visitor:/), '5']);
    await screenshot(page, 'forward-paused-destinations');
  });
});

describe("paused destinations (extension) of a ticket's runs with a retry schedule", () => {
  it('lists the destination with the ticket whose runs it holds, until the ticket is deleted', async () => {
    destination.script('/ticket-failing', { pieces: ['{"error":"down"}'], status: 500 });
    const ticketId = 'dash-circuit';
    await worker.registerTicket(ticketId, {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${destination.url}/ticket-failing`, method: 'POST' } },
      ],
      retry_schedule: { delays: ['1h'], attempts: 2 },
    });
    // Five consumptions, each run's first attempt failing: five failures in a row open the ticket's circuit.
    for (let n = 0; n < 5; n++) {
      const res = await fetch(`${worker.url}/tp/${worker.project.service_id}/${ticketId}`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
    }
    const ticketRows = async () => {
      const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/destinations`, {
        headers: { authorization: `Bearer ${worker.project.owner_key}` },
      });
      return ((await res.json()) as { list: any[] }).list.filter((item) => item.ticket === ticketId);
    };
    const until = Date.now() + 20_000;
    while ((await ticketRows()).length === 0) {
      if (Date.now() > until) throw new Error("the ticket's circuit never opened");
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await page.click('nav a[href="#/forwarding"]');
    await page.click('.paused-destinations button:has-text("Refresh")');
    const row = page.locator('.paused-destinations tbody tr', { hasText: `ticket ${ticketId}` });
    await expect.poll(() => row.count()).toBe(1);
    expect((await row.locator('td').allTextContents()).slice(0, 4)).toEqual([new URL(destination.url).origin, 'open (waiting)', `ticket ${ticketId}`, '5']);
    // Deleted, its runs and its circuits go (no attempt is left to fire after the test).
    const deleted = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/tickets/${ticketId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${worker.project.owner_key}` },
    });
    expect(deleted.status).toBe(200);
    expect(await ticketRows()).toEqual([]);
  });
});

describe('dead letters (extension) on the Forwarding page', () => {
  it('lists a request sent with retry that settled 502 with why it failed, its attempts and caller, and filters by reason', async () => {
    destination.script('/dead-letter', { pieces: ['{"error":"bad gateway"}'], status: 502 });
    // A caller of its own, so no circuit of the other tests' callers is fed; it settles at once (a 502 is never resent).
    const sent = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'dashboard-dead-letter-visitor' },
      body: JSON.stringify({ url: `${destination.url}/dead-letter`, method: 'POST', queue: 'dash-dead-letter', retry: true }),
    });
    expect(sent.status).toBe(200);
    const id = ((await sent.json()) as { id: string }).id;
    const listed = async () => {
      const res = await fetch(`${worker.url}/v1/projects/${worker.project.service_id}/forward/dead-letters?reason=error_status`, {
        headers: { authorization: `Bearer ${worker.project.owner_key}` },
      });
      return ((await res.json()) as { list: Array<{ id: string }> }).list;
    };
    const until = Date.now() + 20_000;
    while (!(await listed()).some((item) => item.id === id)) {
      if (Date.now() > until) throw new Error('the dead letter was never listed');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await page.click('nav a[href="#/forwarding"]');
    await page.click('.dead-letters button:has-text("Refresh")');
    const cells = page.locator(`.dead-letters tbody tr[data-id="${id}"] td`);
    await expect.poll(() => cells.count()).toBe(6);
    const texts = await cells.allTextContents();
    expect(texts.slice(1)).toEqual(['answered 408 or 5xx', '502', '1', expect.stringMatching(/^visitor:/), `POST ${destination.url}/dead-letter`]);
    await page.selectOption('#dead-letter-reason', 'timeout');
    await expect.poll(() => page.locator('.dead-letters').textContent()).toContain('No dead letter.');
    await page.selectOption('#dead-letter-reason', 'error_status');
    await expect.poll(() => cells.count()).toBe(6);
    await screenshot(page, 'forward-dead-letters');
  });
});
