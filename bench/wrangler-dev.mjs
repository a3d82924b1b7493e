// Starts a Worker with `wrangler dev` on loopback (like scripts/local-worker.mjs) from a given config,
// and also returns its inspector port (for CPU profiles) and process group (for CPU accounting), and
// gives up at once when the build fails.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, freePort, spawnWrangler } from '../scripts/local-worker.mjs';

/**
 * Local observability (on by default in wrangler dev) stores every span of every request in a SQLite
 * trace store with an fsync per batch: a development-only cost, larger for code with more spans.
 */
const BENCH_ENV = { X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? 'false' };
/** Each flood limit of the bench's gateway: more requests than a scenario sends in a period. */
const BENCH_FLOOD_LIMIT = 100_000_000;
export const BASELINE_CONFIG = path.join(ROOT, 'bench', 'baseline', 'wrangler.toml');
/** The baseline behind the same static-assets routing as the gateway (`--assets=both`). */
export const BASELINE_WITH_ASSETS_CONFIG = path.join(ROOT, 'bench', 'baseline', 'wrangler.assets.toml');

/**
 * The gateway's wrangler.toml for the bench, written to .bench/: every binding of the shipped Worker,
 * run from bench/gateway-entry.ts (the app plus the /v1/bench/* routes). With `assets: false` the
 * [assets] table is left out: locally, assets put two more Workers (wrangler's RPC proxy and asset
 * router) in front of every request; on Cloudflare that routing is not the Worker's. The flood limits
 * ([[ratelimits]]) are raised out of reach: every request is still counted, but the scenarios measure one
 * ticket from one address far past a caller's limit, which would make them measure 429s. The same
 * tables, as raised, are the stand-in's (BENCH_RATE_LIMITS, see withRateLimitTable).
 */
export function benchGatewayConfig({ assets }) {
  const source = readFileSync(path.join(ROOT, 'wrangler.toml'), 'utf8');
  const out = [];
  let inAssets = false;
  for (const line of source.split('\n')) {
    const table = /^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line);
    if (table) inAssets = table[1].trim() === 'assets';
    if (inAssets && !assets) continue;
    // Paths in the config are relative to its folder, one level up from .bench/.
    const main = line.replace(/^(\s*main\s*=\s*")[^"]+"/, '$1../bench/gateway-entry.ts"');
    const unlimited = main.replace(/^(\s*simple\s*=\s*\{\s*limit\s*=\s*)\d+/, `$1${BENCH_FLOOD_LIMIT}`);
    const moved = unlimited.replace(/^(\s*(?:migrations_dir|directory)\s*=\s*")([^"]+)"/, (_, key, value) => `${key}../${value}"`);
    // [alias] values are paths too ("package" = "./src/…").
    out.push(moved.replace(/^(\s*"[^"]+"\s*=\s*")\.\/([^"]+)"/, (_, key, value) => `${key}../${value}"`));
  }
  const text = withRateLimitTable(out.join('\n'));
  if (text.includes('[assets]') !== assets || !text.includes('main = "../bench/gateway-entry.ts"')) {
    throw new Error("bench: could not derive the gateway's bench config from wrangler.toml");
  }
  const dir = path.join(ROOT, '.bench');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, assets ? 'wrangler.gateway-assets.toml' : 'wrangler.gateway.toml');
  writeFileSync(
    file,
    `# Written by bench/wrangler-dev.mjs from wrangler.toml: the same Worker run from bench/gateway-entry.ts${assets ? '' : ', without [assets]'}.\n${text}`,
  );
  return file;
}

/**
 * Adds BENCH_RATE_LIMITS to the config's [vars]: its [[ratelimits]] tables as JSON, { NAME: { namespace,
 * limit, period } }, which bench/rate-limit-stand-in.ts counts by, so the stand-in and the simulated
 * binding have the same namespaces, limits and periods.
 */
function withRateLimitTable(toml) {
  const table = {};
  for (const part of toml.split(/^\[\[ratelimits\]\]\s*$/m).slice(1)) {
    const body = part.split(/^\[/m)[0];
    const name = /^name\s*=\s*"([^"]+)"/m.exec(body)?.[1];
    const namespace = /^namespace_id\s*=\s*"(\d+)"/m.exec(body)?.[1];
    const simple = /^simple\s*=\s*\{\s*limit\s*=\s*(\d+)\s*,\s*period\s*=\s*(\d+)\s*\}/m.exec(body);
    if (!name || !namespace || !simple) throw new Error(`bench: could not read a [[ratelimits]] table of wrangler.toml:\n${body}`);
    table[name] = { namespace, limit: Number(simple[1]), period: Number(simple[2]) };
  }
  if (Object.keys(table).length === 0 || !/^\[vars\]\s*$/m.test(toml)) throw new Error('bench: wrangler.toml has no [[ratelimits]] or no [vars]');
  return toml.replace(
    /^\[vars\]\s*$/m,
    (line) =>
      `${line}\n# The bench's stand-in for the Rate Limiting bindings counts by these (bench/rate-limit-stand-in.ts).\nBENCH_RATE_LIMITS = '${JSON.stringify(table)}'`,
  );
}

/** Returns { url, inspectorPort, pgid, stop(), output() } once `healthPath` answers 200. */
export async function startWranglerDev({ config, persistTo, vars = {}, healthPath, timeoutMs = 90_000 }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const args = [
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(inspectorPort),
    '--persist-to',
    persistTo,
    '--show-interactive-dev-session=false',
  ];
  if (config) args.push('-c', config);
  for (const [key, value] of Object.entries(vars)) args.push('--var', `${key}:${value}`);
  const { child, stop, output: captured } = spawnWrangler(args, { env: BENCH_ENV });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev (${config ?? 'wrangler.toml'}) exited with code ${child.exitCode}\n${captured()}`);
    if (captured().includes('Build failed')) {
      await stop();
      throw new Error(`wrangler dev (${config ?? 'wrangler.toml'}) could not build the Worker\n${captured()}`);
    }
    try {
      if ((await fetch(`${url}${healthPath}`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev (${config ?? 'wrangler.toml'}) did not answer within ${timeoutMs} ms\n${captured()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, inspectorPort, pgid: child.pid, stop, output: captured };
}
