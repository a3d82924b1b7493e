/** Driving the owner dashboard in Chromium: sign-in, the inputs the editor binds to field paths, screenshots. */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/** Where a run saves its screenshots (gitignored); docs/images/ holds the committed copies. */
export const SCREENS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.screens');

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS_DIR, `${name}.png`), fullPage: true });
}

export async function signIn(page: Page, baseUrl: string, ownerKey: string): Promise<void> {
  await page.goto(`${baseUrl}/#/tickets`);
  await page.fill('#owner-key', ownerKey);
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#tickets');
}

/** The input bound to a field path of the definition (`actions[0].exe.url`). */
export const input = (page: Page, fieldPath: string) => page.locator(`[data-path=${JSON.stringify(fieldPath)}]`);

/** The message shown next to the input of a field path. */
export const fieldError = (page: Page, fieldPath: string) => page.locator(`[data-error-for=${JSON.stringify(fieldPath)}]`);

/** Presses Tab until the focused element matches `selector` (at most `max` times); keyboard only. */
export async function tabTo(page: Page, selector: string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The editor's JSON mode text, parsed. */
export async function jsonModeDefinition(page: Page): Promise<unknown> {
  return JSON.parse(await page.inputValue('#definition-json'));
}
