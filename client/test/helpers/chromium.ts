import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--no-zygote', '--disable-gpu', '--disable-background-networking'];
const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

interface BrowserBinary {
  executablePath: string;
  env?: Record<string, string>;
}

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH, else the system's, else the one shipped inside
 * the @sparticuz/chromium npm package, so `npm install && npm test` needs no system browser and no
 * download. That binary links NSS and expat, which a bare machine may lack: the package carries them
 * (al2023.tar.br), unpacked beside it and put on the library path of the browser alone.
 */
export async function browserBinary(): Promise<BrowserBinary> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return { executablePath: configured };
  const system = SYSTEM_CHROMIUM.find((candidate) => existsSync(candidate));
  if (system) return { executablePath: system };
  return packagedChromium();
}

async function packagedChromium(): Promise<BrowserBinary> {
  const { default: Packaged, inflate } = await import('@sparticuz/chromium');
  const executablePath = await Packaged.executablePath();
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', 'bin');
  const libraries = await inflate(path.join(bin, 'al2023.tar.br'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const libraryPath = [path.join(libraries, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return {
    executablePath,
    env: { ...inherited, LD_LIBRARY_PATH: libraryPath, FONTCONFIG_PATH: process.env.FONTCONFIG_PATH ?? path.join(path.dirname(executablePath), 'fonts') },
  };
}

/** Chromium, headless, as every browser test of this suite runs it. */
export async function launchChromium(): Promise<Browser> {
  const { executablePath, env } = await browserBinary();
  return chromium.launch({
    executablePath,
    ...(env ? { env } : {}),
    args: ARGS,
    timeout: 90_000, // a first launch may build its font cache
  });
}
