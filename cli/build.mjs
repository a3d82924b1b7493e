// Bundles the CLI into one ESM file, dist/svc.mjs: its packages (commander, picocolors, diff) and the
// repository's schemas/signature-presets.ts included, so the packed CLI installs with no dependencies.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const CLI = path.dirname(fileURLToPath(import.meta.url));

export async function buildCli() {
  const outfile = path.join(CLI, 'dist', 'svc.mjs');
  const result = await build({
    write: false,
    entryPoints: [path.join(CLI, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    define: { SVC_VERSION: JSON.stringify(JSON.parse(readFileSync(path.join(CLI, 'package.json'), 'utf8')).version) },
    // commander is CommonJS and calls require('events') etc.: an ESM bundle needs a require of its own.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);" },
  });
  // Written beside it and renamed: a `svc` starting meanwhile reads the old bundle or the new, never half of one.
  mkdirSync(path.dirname(outfile), { recursive: true });
  const temporary = `${outfile}.${process.pid}.tmp`;
  writeFileSync(temporary, result.outputFiles[0].contents);
  renameSync(temporary, outfile);
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${path.relative(process.cwd(), await buildCli())}`);
}
