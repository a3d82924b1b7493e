// Starts `wrangler dev` on loopback with local D1, Durable Objects and Queues, and waits until the
// Worker answers. Used by `npm start`, the client and dashboard tests, and the benchmarks.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WRANGLER = path.join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');

/** Wrangler's network calls are switched off: it runs offline in local mode. */
export const OFFLINE_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_LOG: process.env.WRANGLER_LOG ?? 'warn',
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Parses a .dev.vars file (KEY=VALUE lines). */
export function readDevVars(file) {
  if (!existsSync(file)) return {};
  const vars = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (m) vars[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  }
  return vars;
}

/**
 * Writes the local settings to `file`: the development identity issuer and loopback destinations
 * are on, the operator token comes from the environment (or stays as it was, or is made up), and the
 * secrets key is made once and kept, so stored secrets stay readable across restarts.
 */
export function ensureDevVars(file, overrides = {}) {
  const current = readDevVars(file);
  const vars = {
    DEV_IDENTITY: 'true',
    ALLOW_PRIVATE_DESTINATIONS: 'true',
    OPERATOR_TOKEN: current.OPERATOR_TOKEN ?? `op_${randomBytes(24).toString('base64url')}`,
    SECRETS_KEY: current.SECRETS_KEY ?? randomBytes(32).toString('base64'),
    ...overrides,
  };
  writeFileSync(
    file,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );
  return vars;
}

function runWrangler(args, { quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...OFFLINE_ENV, CI: 'true' },
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(' ')} failed (${code})\n${output}`))));
  });
}

/** Applies the D1 migrations to the local database under `persistTo`. */
export function applyMigrations(persistTo, options) {
  const args = ['d1', 'migrations', 'apply', 'DB', '--local'];
  if (persistTo) args.push('--persist-to', persistTo);
  return runWrangler(args, options);
}

async function waitForHealth(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/v1/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the Worker did not answer on ${url} within ${timeoutMs} ms`);
}

/**
 * Spawns wrangler in its own process group (so stop() ends workerd too), offline. Returns
 * { child, stop(), output() }; with quiet the output is captured, else it goes to this terminal.
 */
export function spawnWrangler(args, { quiet = true, env = {} } = {}) {
  const child = spawn(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...OFFLINE_ENV, ...env },
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    detached: process.platform !== 'win32',
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
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
  return { child, stop, output: () => output };
}

/**
 * Starts the Worker with `wrangler dev`. Options: port (default: a free one), persistTo (state
 * folder, default .wrangler/state), vars (settings passed with --var, over .dev.vars), quiet (capture
 * the output), signal (an AbortSignal that stops the Worker, also while it is starting).
 * Returns { url, port, stop(), output() }.
 */
export async function startLocalWorker(options = {}) {
  // A free port can be taken by another process before wrangler binds it (tests start Workers side by
  // side): a start that lost that race is tried again on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLocalWorkerOnce(options);
    } catch (err) {
      if (options.port !== undefined || attempt === 3 || !/Address already in use/.test(err.message)) throw err;
    }
  }
}

async function startLocalWorkerOnce({ port, persistTo, vars = {}, quiet = true, timeoutMs = 60_000, signal } = {}) {
  port ??= await freePort();
  const inspectorPort = await freePort();
  await applyMigrations(persistTo, { quiet });
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort), '--show-interactive-dev-session=false'];
  if (persistTo) args.push('--persist-to', persistTo);
  // GET /__scheduled?cron=… runs the scheduled handler (the alert tests drive the minute's cron with it).
  args.push('--test-scheduled');
  for (const [key, value] of Object.entries(vars)) args.push('--var', `${key}:${value}`);
  const { child, stop, output } = spawnWrangler(args, { quiet });
  // wrangler runs in its own process group, out of reach of the terminal's Ctrl+C.
  if (signal?.aborted) void stop();
  else signal?.addEventListener('abort', () => void stop(), { once: true });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child, timeoutMs);
  } catch (err) {
    await stop();
    throw new Error(`${err.message}\n${output()}`);
  }
  return { url, port, stop, output, child };
}
