#!/usr/bin/env node
// The `svc` command runs the bundle, dist/svc.mjs. A packed CLI ships the bundle (made by `prepack`).
// In the repository (build.mjs beside it) the bundle is made here, on the first run after a clone and
// whenever a source is newer, so `npx svc` after `npm install` needs no install script.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const at = (relative) => fileURLToPath(new URL(relative, import.meta.url));
const bundle = at('../dist/svc.mjs');
const builder = at('../build.mjs');

function newestSource() {
  const sources = readdirSync(at('../src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.parentPath}/${entry.name}`);
  sources.push(at('../../schemas/signature-presets.ts'), at('../package.json'));
  return Math.max(...sources.filter(existsSync).map((file) => statSync(file).mtimeMs));
}

if (existsSync(builder) && (!existsSync(bundle) || statSync(bundle).mtimeMs < newestSource())) {
  try {
    const { buildCli } = await import(new URL('../build.mjs', import.meta.url).href);
    await buildCli();
  } catch (err) {
    process.stderr.write(`svc: the CLI could not be built (${err?.message ?? err}); run \`npm install\` at the repository root.\n`);
    process.exit(1);
  }
}
await import(new URL('../dist/svc.mjs', import.meta.url).href);
