// Builds the browser client: ESM modules and type declarations into client/dist (gitignored).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = path.dirname(fileURLToPath(import.meta.url));

export function buildClient() {
  rmSync(path.join(CLIENT, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(CLIENT, 'tsconfig.json')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the client build failed:\n${result.stdout}${result.stderr}`);
  return path.join(CLIENT, 'dist');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${buildClient()}`);
}
