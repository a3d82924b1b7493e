// Starts a Worker with `wrangler dev` on loopback (like scripts/local-worker.mjs) from a given config,
// and also returns its inspector port (for CPU profiles) and process group (for CPU accounting), and
// gives up at once when the build fails.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { OFFLINE_ENV, ROOT, freePort } from '../scripts/local-worker.mjs';

const WRANGLER = path.join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
/**
 * Local observability (on by default in wrangler dev) stores every span of every request in a SQLite
 * trace store with an fsync per batch: a development-only cost, larger for code with more spans.
 */
const BENCH_ENV = { X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? 'false' };
export const BASELINE_CONFIG = path.join(ROOT, 'bench', 'baseline', 'wrangler.toml');
/** The baseline behind the same static-assets routing as the gateway (`--baseline-assets`). */
export const BASELINE_WITH_ASSETS_CONFIG = path.join(ROOT, 'bench', 'baseline', 'wrangler.assets.toml');

/** Returns { url, inspectorPort, pgid, stop(), output() } once `healthPath` answers 200. */
export async function startWranglerDev({ config, persistTo, vars = {}, healthPath, timeoutMs = 90_000 }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort), '--persist-to', persistTo, '--show-interactive-dev-session=false'];
  if (config) args.push('-c', config);
  for (const [key, value] of Object.entries(vars)) args.push('--var', `${key}:${value}`);
  const child = spawn(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...OFFLINE_ENV, ...BENCH_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.on('exit', () => resolve());
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
        resolve();
      }, 5_000).unref();
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev (${config ?? 'wrangler.toml'}) exited with code ${child.exitCode}\n${output}`);
    if (output.includes('Build failed')) {
      await stop();
      throw new Error(`wrangler dev (${config ?? 'wrangler.toml'}) could not build the Worker\n${output}`);
    }
    try {
      if ((await fetch(`${url}${healthPath}`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev (${config ?? 'wrangler.toml'}) did not answer within ${timeoutMs} ms\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, inspectorPort, pgid: child.pid, stop, output: () => output };
}
