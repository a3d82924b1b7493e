#!/usr/bin/env node
// The `svc` command: runs the bundle (dist/svc.mjs). In the repository the bundle is made by the
// workspace's `prepare` script on `npm install`; if it is missing (installed with --ignore-scripts),
// it is built here once, with the repository's esbuild.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/svc.mjs', import.meta.url);
if (!existsSync(bundle)) {
  try {
    const { buildCli } = await import(new URL('../build.mjs', import.meta.url).href);
    await buildCli();
  } catch (err) {
    process.stderr.write(`svc: the CLI is not built and could not be built (${err?.message ?? err}): run \`npm run build\` in cli/.\n`);
    process.exit(1);
  }
}
await import(bundle.href);
