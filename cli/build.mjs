// Bundles the CLI into one ESM file, dist/svc.mjs: its packages (commander, picocolors, diff) and the
// repository's schemas/signature-presets.ts included, so the packed CLI installs with no dependencies.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFileSync } from 'node:fs';

const CLI = path.dirname(fileURLToPath(import.meta.url));

export async function buildCli() {
  const outfile = path.join(CLI, 'dist', 'svc.mjs');
  await build({
    entryPoints: [path.join(CLI, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    // commander is CommonJS and calls require('events') etc.: an ESM bundle needs a require of its own.
    define: { SVC_VERSION: JSON.stringify(JSON.parse(readFileSync(path.join(CLI, 'package.json'), 'utf8')).version) },
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);" },
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${path.relative(process.cwd(), await buildCli())}`);
}
