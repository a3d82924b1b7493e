/// <reference types="vite/types/importMeta.d.ts" />
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The direction of imports recorded in docs/architecture.md, checked on the source text: the lower
 * a layer's tier, the fewer layers it may import. Tests (*.test.ts) are not held to it.
 */
const sources: Record<string, string> = import.meta.glob(
  ['/src/**/*.ts', '/schemas/**/*.ts', '/durable-objects/**/*.ts', '/client/src/**/*.ts', '/dashboard/src/**/*.{ts,tsx}', '/cli/src/**/*.ts', '!**/*.test.ts'],
  {
    query: '?raw',
    import: 'default',
    eager: true,
  },
);

/** The parts built for other places (the browser client, the owner's page, the command line): they share only schemas/ with the server. */
const APART = new Set(['client', 'dashboard', 'cli']);

/**
 * Every folder (or top-level file) of the server and its tier: the edge (routes, Durable Objects) →
 * consume/forward → the ticket log → engine/actions → outbound/platform/records and the shared parts →
 * schemas and the byte helpers. A layer imports only its own tier and below.
 */
const TIERS: Record<string, number> = {
  'durable-objects': 4,
  'src/index.ts': 4,
  'src/router.ts': 4,
  'src/app.ts': 4,
  'src/routes': 4,
  'src/openapi': 4,
  'src/mcp': 4,
  'src/queue': 4,
  'src/http': 4,
  'src/consume': 3,
  'src/forward': 3,
  'src/secure': 3,
  // Alert rules: evaluated from D1 each minute, notified through the outbound layer and the mail path.
  'src/alerts': 3,
  // The ticket log (index, bodies, segments, sampling, export, legacy reading): between the path that writes it and the action rows it keeps.
  'src/ticket-log': 2.5,
  'src/engine': 2,
  'src/actions': 2,
  'src/outbound': 1,
  'src/platform': 1,
  // One rate limiter: flood control in the Rate Limiting bindings, a Secret Key's per-minute limits in D1, one 429.
  'src/rate-limits': 1,
  'src/records': 1,
  // Metrics over time: the counters, the latency sketch and their D1 points; counted by the objects, read by the routes.
  'src/metrics': 1,
  'src/mail': 1,
  'src/env.ts': 1,
  'src/limits.ts': 1,
  schemas: 0,
  'src/bytes': 0,
  'src/wire': 0,
};

/** Whether `layer` may import `target` (another layer): its own tier and below, with three stricter layers. */
function mayImport(layer: string, target: string): boolean {
  if (APART.has(layer)) return target === 'schemas';
  // Routes and the rest reach an object through its stub (src/platform/object-stubs.ts); only the entry exports the classes.
  if (target === 'durable-objects') return layer === 'src/index.ts';
  // The engine is pure logic under the action modules: nothing of its own tier or above.
  if (layer === 'src/engine') return TIERS[target] < TIERS[layer];
  // The wire types and zod schemas the client and the dashboard share, and the pure byte helpers: nothing of the server.
  if (layer === 'schemas' || layer === 'src/bytes') return false;
  // The error types, the JSON depth check and the pager every tier answers with: only schemas/ and the byte helpers.
  if (layer === 'src/wire') return target === 'schemas' || target === 'src/bytes';
  return TIERS[target] <= TIERS[layer];
}

/** The layer of a source path such as /src/engine/template.ts: its folder, or the file itself at the top of src/. */
function layerOf(file: string): string {
  const [root, second] = file.replace(/^\//, '').split('/');
  return root === 'src' ? `src/${second}` : root;
}

const IMPORT_SPECIFIER = [
  /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x from '…', import type …, export … from '…'
  /\bimport\s*['"]([^'"]+)['"]/g, // import '…' (side effects only)
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // import('…'), in code or in a type
];

/** The module specifiers a source file imports, in any form. */
function importSpecifiers(text: string): string[] {
  return IMPORT_SPECIFIER.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/**
 * A relative specifier resolved against the importing file, to the source file it names; a file
 * outside the server's folders (package.json, a generated declaration) as it is written.
 */
function resolve(file: string, specifier: string): string | undefined {
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  // A stylesheet the dashboard's bundle takes in (esbuild) is not a module of the graph.
  if (!/^\/(src|schemas|durable-objects|client|dashboard|cli)\//.test(target) || target.endsWith('.css')) return target;
  return [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}.tsx`, `${target}/index.ts`].find((candidate) => candidate in sources);
}

interface Edge {
  file: string;
  specifier: string;
  target: string | undefined;
}

const edges: Edge[] = Object.entries(sources).flatMap(([file, text]) =>
  importSpecifiers(text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ file, specifier, target: resolve(file, specifier) })),
);

/**
 * Imports of files of `layer` that reach a layer it may not import, as "file → specifier (layer)".
 * A file outside the server's layers (package.json, a generated declaration) is not a layer.
 */
function breaches(layer: string): string[] {
  return edges
    .filter((edge) => layerOf(edge.file) === layer && edge.target !== undefined)
    .filter((edge) => {
      const target = layerOf(edge.target!);
      return target !== layer && (target in TIERS || APART.has(target)) && !mayImport(layer, target);
    })
    .map((edge) => `${edge.file} → ${edge.specifier} (${layerOf(edge.target!)})`);
}

/** Which layers each layer imports (its own files aside). */
function layerGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (edge.target === undefined) continue;
    const [from, to] = [layerOf(edge.file), layerOf(edge.target)];
    if (from === to || !(to in TIERS || APART.has(to))) continue;
    graph.set(from, (graph.get(from) ?? new Set()).add(to));
  }
  return graph;
}

/** Each circle of layers importing one another, as "a → b → a", found once from its first layer in sorted order. */
function layerCycles(graph: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const walk = (start: string, path: string[]) => {
    for (const next of graph.get(path.at(-1)!) ?? []) {
      if (next === start) cycles.push([...path, start].join(' → '));
      else if (next > start && !path.includes(next)) walk(start, [...path, next]);
    }
  };
  for (const layer of [...graph.keys()].sort()) walk(layer, [layer]);
  return cycles;
}

describe('the direction of imports (docs/architecture.md)', () => {
  it('the import reader finds every form of import', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "import c, { d } from\n  './c';",
      "export { e } from './e';",
      "export * from './f';",
      "import './g';",
      "type H = import('./h').H;",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(expect.arrayContaining(['./a', '../b', './c', './e', './f', './g', './h']));
  });

  it('every relative import of the server resolves to a source file, and every folder has a layer', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    expect(edges.filter((edge) => edge.target === undefined).map((edge) => `${edge.file} → ${edge.specifier}`)).toEqual([]);
    const unplaced = [...new Set(Object.keys(sources).map(layerOf))].filter((layer) => !(layer in TIERS) && !APART.has(layer));
    expect(unplaced, 'give each new folder its tier in TIERS and docs/architecture.md').toEqual([]);
  });

  // Type-only imports count: the reader above finds `import type` and `import('…')` types too.
  it.each(Object.keys(TIERS))('%s imports only the layers its tier may import', (layer) => {
    expect(breaches(layer)).toEqual([]);
  });

  it.each([...APART])('%s/ imports only schemas/ of the server', (layer) => {
    expect(breaches(layer)).toEqual([]);
  });

  // Same-tier imports are allowed, so without this two folders of one tier could import each other.
  it('no two folders import each other, directly or around a circle', () => {
    expect(layerCycles(layerGraph())).toEqual([]);
  });

  it('the circle finder finds a circle once, and none in a line', () => {
    const graph = (pairs: [string, string][]) => new Map(pairs.map(([from, to]) => [from, new Set([to])]));
    expect(
      layerCycles(
        graph([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
        ]),
      ),
    ).toEqual(['a → b → c → a']);
    expect(
      layerCycles(
        graph([
          ['a', 'b'],
          ['b', 'c'],
        ]),
      ),
    ).toEqual([]);
  });

  it('an import up a tier is a breach; the engine imports only below it; schemas/ and src/bytes/ import nothing of the server', () => {
    expect(mayImport('src/records', 'src/consume')).toBe(false);
    expect(mayImport('src/actions', 'src/consume')).toBe(false);
    expect(mayImport('src/platform', 'src/engine')).toBe(false);
    expect(mayImport('src/consume', 'durable-objects')).toBe(false);
    expect(mayImport('src/engine', 'src/actions')).toBe(false);
    expect(mayImport('src/actions', 'src/engine')).toBe(true);
    expect(mayImport('src/consume', 'src/ticket-log')).toBe(true);
    expect(mayImport('src/ticket-log', 'src/consume')).toBe(false);
    expect(mayImport('src/actions', 'src/ticket-log')).toBe(false);
    expect(mayImport('src/platform', 'src/http')).toBe(false);
    expect(mayImport('src/platform', 'src/wire')).toBe(true);
    expect(mayImport('src/wire', 'src/platform')).toBe(false);
    expect(mayImport('src/records', 'src/bytes')).toBe(true);
    expect(mayImport('schemas', 'src/bytes')).toBe(false);
    expect(mayImport('src/bytes', 'schemas')).toBe(false);
    expect(mayImport('client', 'schemas')).toBe(true);
    expect(mayImport('src/routes', 'durable-objects')).toBe(false);
    expect(mayImport('src/index.ts', 'durable-objects')).toBe(true);
    expect(mayImport('dashboard', 'src/http')).toBe(false);
  });
});
