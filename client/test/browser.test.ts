import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Svc } from '../src/index.js';
import { EXAMPLE_PAGE, FORWARD_EXAMPLE_PAGE, startPageServer } from './helpers/page-server.js';
import { launchChromium } from './helpers/chromium.js';
import { json, startScriptedServer, type ScriptedServer } from './helpers/scripted-server.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The built client (client/dist) in Debian's Chromium, calling the Worker cross-origin.
let worker: ProjectOnWorker;
let pages: Awaited<ReturnType<typeof startPageServer>>;
let browser: Browser;
let page: Page;
let dest: ScriptedServer;
const ASSISTANT_KEY = 'sk-readme-example-2f9c';

beforeAll(async () => {
  browser = await launchChromium();
  worker = await createTestProject();
  await worker.registerTicket('newsletter-signup', {
    count: 10,
    condition: { method: 'POST', body: [{ key: 'email', operator: '<=', value: '@example.com' }] },
    actions: [],
  });
  await worker.registerTicket('open', { actions: [] });
  await worker.registerTicket('verified-only', { condition: { user: [{ key: 'email_verified', operator: '=', value: true }] }, actions: [] });
  dest = await startScriptedServer();
  await worker.putSecretKey('assistant', { value: ASSISTANT_KEY, destinations: [`${dest.url}/v1`] });
  pages = await startPageServer({ serviceId: worker.project.service_id, baseUrl: worker.url, apiOrigin: dest.url });
  page = await browser.newPage();
});

afterAll(async () => {
  await pages?.close();
  await browser?.close();
  await dest?.close();
});

const remaining = async (ticketId: string) => {
  const owner = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: worker.project.owner_key });
  return (await owner.getTickets({ ticket_id: ticketId })).list[0].count;
};

describe('the client in a browser page', () => {
  it('the README example page consumes the ticket cross-origin and shows the receipt', async () => {
    await page.goto(pages.url);
    await page.fill('input[name=email]', 'ada@example.com');
    await page.click('button');
    await expect.poll(() => page.textContent('#result'), { timeout: 15_000 }).toMatch(/^Signed up \(receipt [0-9A-Za-z]+\)\.$/);
    expect(await remaining('newsletter-signup')).toBe(9);
  });

  it('the README example page shows a refusal by its code, and nothing is consumed', async () => {
    await page.goto(pages.url);
    await page.fill('input[name=email]', 'ada@elsewhere.org');
    await page.click('button');
    await expect.poll(() => page.textContent('#result'), { timeout: 15_000 }).toBe('Refused: CONDITION_FAILED');
    expect(await remaining('newsletter-signup')).toBe(9);
  });

  it('the README shows the example page exactly as tested', async () => {
    const readme = await readFile(path.resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain((await readFile(EXAMPLE_PAGE, 'utf8')).trim());
  });

  it("the receipt names the browser's user agent, and GET, signed-in POST and a 400 refusal all cross origins", async () => {
    const user = await worker.mintUser({ email_verified: true });
    await page.goto(`${pages.url}/module.html`);
    await page.waitForFunction(() => 'svcClient' in window);
    const result = await page.evaluate(
      async ({ serviceId, baseUrl, idToken }) => {
        const { Svc, SvcError } = (window as unknown as { svcClient: typeof import('../src/index.js') }).svcClient;
        const svc = new Svc({ serviceId, baseUrl });
        const post = await svc.consumeTicket({ ticket_id: 'open', method: 'POST', data: { from: 'browser' } });
        const get = await svc.consumeTicket({ ticket_id: 'open', method: 'GET', data: { qty: 2 } });
        svc.setIdToken(idToken);
        const signedIn = await svc.consumeTicket({ ticket_id: 'verified-only', method: 'POST', auth: true });
        const refusal = await svc.consumeTicket({ ticket_id: 'no-such-ticket', method: 'POST' }).catch((err: InstanceType<typeof SvcError>) => ({
          isSvcError: err instanceof SvcError,
          code: err.code,
          status: err.status,
          stage: err.cause && 'stage' in err.cause ? err.cause.stage : undefined,
        }));
        return { userAgent: navigator.userAgent, origin: location.origin, post, get, signedIn, refusal };
      },
      { serviceId: worker.project.service_id, baseUrl: worker.url, idToken: user.id_token },
    );
    expect(result.origin).not.toBe(new URL(worker.url).origin);
    expect(result.post.user_id.endsWith(`(${result.userAgent})`)).toBe(true);
    expect(result.get).toMatchObject({ ticket_id: 'open', is_test: false });
    expect(result.signedIn.user_id).toBe(user.user_id);
    expect(result.refusal).toEqual({ isSvcError: true, code: 'TICKET_NOT_FOUND', status: 400, stage: 'ticket' });
  });
});

describe('forwardRequest in a browser page', () => {
  it('the README forwarding page asks a JSON API with a key the page never holds, and shows the answer', async () => {
    dest.handle((req, res) => {
      const authorized = req.headers.authorization === `Bearer ${ASSISTANT_KEY}`;
      json(res, authorized ? 200 : 401, authorized ? { answer: `You asked: ${JSON.parse(req.body).question}` } : { error: 'bad key' });
    });
    const seen: string[] = [];
    page.on(
      'response',
      (response) =>
        void response.text().then(
          (text) => seen.push(text),
          () => undefined,
        ),
    );
    await page.goto(`${pages.url}/ask.html`);
    await page.fill('input[name=question]', 'Is it raining?');
    await page.click('button');
    await expect.poll(() => page.textContent('#answer'), { timeout: 15_000 }).toBe('You asked: Is it raining?');
    expect(dest.requests.at(-1)).toMatchObject({ method: 'POST', url: '/v1/answers' });
    expect(await page.content()).not.toContain(ASSISTANT_KEY);
    expect(seen.join('\n')).not.toContain(ASSISTANT_KEY);
  });

  it('the README shows the forwarding page exactly as tested', async () => {
    const readme = await readFile(path.resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain((await readFile(FORWARD_EXAMPLE_PAGE, 'utf8')).trim());
  });

  it('a form submit event with multipart: the default is prevented and the destination gets the bytes the browser would post', async () => {
    dest.handle((_req, res) => json(res, 200, { received: true }));
    const before = dest.requests.length;
    await page.goto(`${pages.url}/module.html`);
    await page.waitForFunction(() => 'svcClient' in window);
    const result = await page.evaluate(
      async ({ serviceId, baseUrl, url }) => {
        const { Svc } = (window as unknown as { svcClient: typeof import('../src/index.js') }).svcClient;
        const svc = new Svc({ serviceId, baseUrl });
        document.body.innerHTML =
          '<form id="upload"><input name="title" value="Grüße"><input type="file" name="file"><button name="go" value="yes">Send</button></form>';
        const form = document.getElementById('upload') as HTMLFormElement;
        const files = new DataTransfer();
        files.items.add(new File([new Uint8Array([0, 255, 1, 254, 13, 10])], 'raw.bin', { type: 'application/octet-stream' }));
        (form.elements.namedItem('file') as HTMLInputElement).files = files.files;
        const button = form.querySelector('button') as HTMLButtonElement;
        const answered = new Promise<{ value: unknown; prevented: boolean }>((resolve, reject) =>
          form.addEventListener('submit', (event) => {
            svc.forwardRequest(event, { url, multipart: true }).then((value) => resolve({ value, prevented: event.defaultPrevented }), reject);
          }),
        );
        button.click();
        const { value, prevented } = await answered;
        const reference = new Response(new FormData(form, button));
        return {
          value,
          prevented,
          stayed: location.pathname,
          referenceType: reference.headers.get('content-type') ?? '',
          referenceBytes: Array.from(new Uint8Array(await reference.arrayBuffer())),
        };
      },
      { serviceId: worker.project.service_id, baseUrl: worker.url, url: `${dest.url}/upload` },
    );
    expect(result).toMatchObject({ value: { received: true }, prevented: true, stayed: '/module.html' });
    expect(dest.requests).toHaveLength(before + 1);
    const arrived = dest.requests[before];
    const boundaryOf = (type: string) => /boundary=(.+)$/.exec(type)![1];
    const normalize = (bytes: Buffer, boundary: string) => bytes.toString('latin1').split(boundary).join('BOUNDARY');
    const reference = Buffer.from(result.referenceBytes);
    expect(normalize(arrived.bytes, boundaryOf(String(arrived.headers['content-type'])))).toBe(normalize(reference, boundaryOf(result.referenceType)));
    expect(reference.includes(Buffer.from([0, 255, 1, 254, 13, 10]))).toBe(true);
    expect(reference.toString('latin1')).toContain('name="go"'); // the submitter, as the browser posts it
  });
});
