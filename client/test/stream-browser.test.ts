import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { STREAM_EXAMPLE_PAGE, startPageServer } from './helpers/page-server.js';
import { deltaEvent, DONE_EVENT, startStreamDestination } from './helpers/stream-destination.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The README's streaming page in Chromium, against `wrangler dev` and a loopback destination that
// answers like a chat API streaming server-sent events.
let worker: ProjectOnWorker;
let pages: Awaited<ReturnType<typeof startPageServer>>;
let browser: Browser;
let page: Page;
let dest: Awaited<ReturnType<typeof startStreamDestination>>;
const KEY = 'sk-chat-readme-7d1e';

beforeAll(async () => {
  browser = await launchChromium();
  worker = await createTestProject();
  dest = await startStreamDestination();
  await worker.putSecretKey('assistant', { value: KEY, destinations: [`${dest.url}/v1`] });
  pages = await startPageServer({ serviceId: worker.project.service_id, baseUrl: worker.url, apiOrigin: dest.url });
  page = await browser.newPage();
});

afterAll(async () => {
  await pages?.close();
  await browser?.close();
  await dest?.close();
});

describe('the README streaming page in a browser', () => {
  it('renders the answer live over the realtime socket, and after a reload reads on from where it was, nothing twice', async () => {
    const words = 'Polling asks again and again; a socket is told at once, and the poll still checks the work.'.split(' ');
    const pieces = [...words.map((word, i) => deltaEvent(i === 0 ? word : ` ${word}`)), DONE_EVENT];
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    dest.script('/v1/chat/completions', { pieces, gapMs: 120, gate: { index: 8, open: held } });

    await page.goto(`${pages.url}/stream.html`);
    await page.fill('input[name=question]', 'How does polling differ from a socket?');
    await page.click('button');
    await expect.poll(() => page.textContent('#transport'), { timeout: 15_000 }).toBe('live');
    const firstPart = words.slice(0, 8).join(' ');
    await expect.poll(() => page.textContent('#answer'), { timeout: 15_000 }).toBe(firstPart);

    await page.reload();
    expect(await page.textContent('#answer')).toBe(firstPart);
    open();
    await expect.poll(() => page.textContent('#transport'), { timeout: 15_000 }).toBe('done');
    expect(await page.textContent('#answer')).toBe(words.join(' '));
    expect(await page.evaluate(() => localStorage.getItem('chat'))).toBeNull();

    const sent = dest.requests.filter((req) => req.url === '/v1/chat/completions');
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(sent[0].body)).toEqual({
      model: 'chat-model',
      stream: true,
      messages: [{ role: 'user', content: 'How does polling differ from a socket?' }],
    });
    expect(await page.content()).not.toContain(KEY);
  });

  it('the README shows the streaming page exactly as tested', async () => {
    const readme = await readFile(path.resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain((await readFile(STREAM_EXAMPLE_PAGE, 'utf8')).trim());
  });
});
