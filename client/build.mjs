// Builds the browser client: ESM modules and type declarations into client/dist (gitignored).
// The client imports schemas/: mostly wire types, and at run time the zod-free rules of forwarding
// (forward-rules.ts and what it imports). tsc compiles from the repository root into a staging folder;
// dist then takes the client's modules, the declarations of schemas/, and the JavaScript of exactly the
// schemas/ modules the client's JavaScript imports, with every import path pointing inside dist.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(CLIENT);

/** Relative module specifiers in `from '…'` and `import('…')`. */
const RELATIVE_SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;

const filesUnder = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));

/** A module's or declaration's imports: schemas/ as dist/schemas/, and every relative path with its .js (as the client writes them). */
function distText(text, fromClient) {
  return text.replace(RELATIVE_SPECIFIER, (_, head, quote, specifier) => {
    let target = fromClient ? specifier.replace(/^\.\.\/\.\.\/schemas\//, './schemas/') : specifier;
    if (!target.endsWith('.js')) target += '.js';
    return `${head}${quote}${target}${quote}`;
  });
}

/** A source map moved from `from` to `to`: its sources made relative to the new place. */
function movedMap(text, from, to) {
  const map = JSON.parse(text);
  map.sources = map.sources.map((source) => path.relative(path.dirname(to), path.resolve(path.dirname(from), source)));
  return JSON.stringify(map);
}

function place(stageFile, distFile, fromClient) {
  mkdirSync(path.dirname(distFile), { recursive: true });
  const text = readFileSync(stageFile, 'utf8');
  if (stageFile.endsWith('.map')) writeFileSync(distFile, movedMap(text, stageFile, distFile));
  else if (/\.(d\.ts|js)$/.test(stageFile)) writeFileSync(distFile, distText(text, fromClient));
  else cpSync(stageFile, distFile);
}

/** The client ships without runtime dependencies: no module of dist may import a package or leave dist. */
function assertSelfContained(dist) {
  for (const file of filesUnder(dist).filter((f) => /\.(js|d\.ts)$/.test(f))) {
    const text = readFileSync(file, 'utf8');
    const bare = [...text.matchAll(/\bfrom\s*['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((s) => !s.startsWith('.'));
    const outside = [...text.matchAll(RELATIVE_SPECIFIER)].map((m) => m[3]).filter((s) => !path.resolve(path.dirname(file), s).startsWith(dist));
    if (bare.length || outside.length) throw new Error(`the client build imports ${[...bare, ...outside].join(', ')} from ${path.relative(CLIENT, file)}`);
  }
}

/** The relative imports of a JavaScript module (type-only imports are gone from tsc's output). */
const runtimeImports = (file) => [...readFileSync(file, 'utf8').matchAll(RELATIVE_SPECIFIER)].map((m) => m[3]);

/** A module file of the stage from an import specifier ('./paths' or './paths.js'). */
function stagedModule(fromFile, specifier) {
  const target = path.resolve(path.dirname(fromFile), specifier);
  return target.endsWith('.js') ? target : `${target}.js`;
}

/**
 * The schemas/ modules the client's JavaScript reaches at run time, following imports from module to
 * module. Each must be free of zod (of every package): it runs in the browser, where the client has no
 * dependencies.
 */
export function runtimeSchemaModules(clientStage, schemasStage) {
  const found = new Set();
  const pending = filesUnder(clientStage).filter((f) => f.endsWith('.js'));
  while (pending.length) {
    const file = pending.pop();
    for (const specifier of runtimeImports(file)) {
      const target = stagedModule(file, specifier);
      if (!target.startsWith(schemasStage + path.sep) || found.has(target)) continue;
      found.add(target);
      pending.push(target);
    }
  }
  for (const module of found) {
    const bare = [...readFileSync(module, 'utf8').matchAll(/\bfrom\s*['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((s) => !s.startsWith('.'));
    if (bare.length) {
      throw new Error(
        `schemas/${path.relative(schemasStage, module).replace(/\.js$/, '.ts')} runs in the client but imports ${bare.join(', ')}: a module the client imports at run time must be free of zod and every other package`,
      );
    }
  }
  return [...found];
}

export function buildClient() {
  const dist = path.join(CLIENT, 'dist');
  const stage = mkdtempSync(path.join(tmpdir(), 'svc-client-'));
  try {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const args = [tsc, '-p', path.join(CLIENT, 'tsconfig.json'), '--rootDir', ROOT, '--outDir', stage];
    const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`the client build failed:\n${result.stdout}${result.stderr}`);
    rmSync(dist, { recursive: true, force: true });
    const clientStage = path.join(stage, 'client', 'src');
    for (const file of filesUnder(clientStage)) place(file, path.join(dist, path.relative(clientStage, file)), true);
    const schemasStage = path.join(stage, 'schemas');
    const toDist = (file) => path.join(dist, 'schemas', path.relative(schemasStage, file));
    for (const file of filesUnder(schemasStage).filter((f) => /\.d\.ts(\.map)?$/.test(f))) place(file, toDist(file), false);
    // Of the schemas' JavaScript, only what the client runs: the rest is types (and zod).
    for (const module of runtimeSchemaModules(clientStage, schemasStage)) {
      place(module, toDist(module), false);
      place(`${module}.map`, toDist(`${module}.map`), false);
    }
    assertSelfContained(dist);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return dist;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${buildClient()}`);
}
