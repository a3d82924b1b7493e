import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { startPageServer } from './helpers/page-server.js';

// The built client (client/dist) in Chromium: an HTML form given to secureRequest is refused before anything
// is sent (the spec: HTML forms are not accepted). No Worker is needed: nothing may reach one.
let browser: Browser;
let page: Page;
let pages: Awaited<ReturnType<typeof startPageServer>>;

beforeAll(async () => {
  browser = await launchChromium();
  pages = await startPageServer({ serviceId: 'abcd0123456789abcdef', baseUrl: 'https://svc.example.com' });
  page = await browser.newPage();
});

afterAll(async () => {
  await pages?.close();
  await browser?.close();
});

describe('secureRequest in a browser page', () => {
  it('a form element or its submit event is INVALID_PARAMETER naming HTML forms; the submit stays on the page; nothing is sent', async () => {
    await page.goto(`${pages.url}/module.html`);
    await page.waitForFunction(() => 'svcClient' in window);
    const result = await page.evaluate(async () => {
      const { Svc } = (window as unknown as { svcClient: typeof import('../src/index.js') }).svcClient;
      const sent: string[] = [];
      const fetch = (async (input: RequestInfo | URL) => {
        sent.push(String(input));
        return new Response('{}');
      }) as typeof window.fetch;
      const svc = new Svc({ serviceId: 'abcd0123456789abcdef', baseUrl: 'https://svc.example.com', idToken: 'a-token', fetch });
      document.body.innerHTML = '<form id="profile"><input name="nickname" value="ada"><button>Save</button></form>';
      const form = document.getElementById('profile') as HTMLFormElement;
      const refusal = (promise: Promise<unknown>) =>
        promise.then(
          () => 'resolved',
          (err: { code: string; message: string }) => `${err.code}: ${err.message}`,
        );
      const element = await refusal(svc.secureRequest(form as never, 'https://api.example.com/profile'));
      const elementAlone = await refusal(svc.secureRequest(form as never));
      const submitted = new Promise<{ refusal: string; prevented: boolean }>((resolve) =>
        form.addEventListener('submit', (event) => {
          void refusal(svc.secureRequest(event as never, 'https://api.example.com/profile')).then((text) =>
            resolve({ refusal: text, prevented: event.defaultPrevented }),
          );
        }),
      );
      form.querySelector('button')!.click();
      const submit = await submitted;
      // The FormData of the same form is accepted (and is what the refusal tells the page to pass).
      const accepted = await svc.secureRequest(new FormData(form), 'https://api.example.com/profile').then(
        () => 'sent',
        () => 'refused',
      );
      return { element, elementAlone, submit, sentBeforeFormData: sent.length - 1, accepted, stillHere: location.pathname };
    });
    for (const text of [result.element, result.elementAlone, result.submit.refusal])
      expect(text).toMatch(/^INVALID_PARAMETER: params: HTML forms are not accepted by secureRequest; pass new FormData\(form\)/);
    expect(result.submit.prevented).toBe(true);
    expect(result.stillHere).toBe('/module.html');
    expect(result.accepted).toBe('sent');
    expect(result.sentBeforeFormData).toBe(0);
  });
});
