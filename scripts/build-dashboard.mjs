// Bundles the owner dashboard (dashboard/src/main.tsx: Preact components, JSX compiled by esbuild, and
// the registration rules of schemas/) into dashboard/public/app.js, next to the page in the folder the Worker serves as
// static assets. wrangler.toml's [build] runs it before every `wrangler dev` and `wrangler deploy`, so
// the bundle (gitignored) is made wherever the Worker is served. The CSS the app imports (uPlot's and the
// charts') is written beside it as dashboard/public/app.css (gitignored too), which index.html links.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DASHBOARD_BUNDLE = path.join(ROOT, 'dashboard', 'public', 'app.js');

export async function buildDashboard() {
  await build({
    entryPoints: [path.join(ROOT, 'dashboard', 'src', 'main.tsx')],
    outfile: DASHBOARD_BUNDLE,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    logLevel: 'warning',
  });
  return DASHBOARD_BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${path.relative(ROOT, await buildDashboard())}`);
}
