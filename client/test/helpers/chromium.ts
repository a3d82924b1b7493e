import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, headless, as every browser test of this suite runs it. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 90_000, // a first launch may build its font cache
  });
