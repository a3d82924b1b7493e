// Starts and stops the loopback destination of the forwarding scenarios (destination-process.mjs).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'destination-process.mjs');
const STARTUP_MS = 10_000;

/**
 * Returns { apiUrl, key, pgid, log(), stats(), streamUrl(), go(), stop() }: `apiUrl` wants
 * `Authorization: Bearer <key>`; `pgid` is the process group to count its CPU with; `log()` the tagged
 * requests since the last call; `streamUrl({ tag, pieces, gapMs })` a stream of pieces (pieces.mjs),
 * held until `go(tag)`, which resolves the wall-clock ms it started at.
 */
export async function startDestination() {
  const key = `dk_${randomBytes(24).toString('base64url')}`;
  const child = fork(SCRIPT, [], { env: { ...process.env, DESTINATION_KEY: key }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], detached: true });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench destination did not start')), STARTUP_MS);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m.port);
    });
    child.once('exit', (code) => reject(new Error(`the bench destination exited with code ${code}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  const getJson = async (route) => (await fetch(`${origin}${route}`)).json();
  return {
    apiUrl: `${origin}/api`,
    key,
    pgid: child.pid,
    log: () => getJson('/log'),
    stats: () => getJson('/stats'),
    streamUrl: ({ tag, pieces, gapMs }) => `${origin}/stream?${new URLSearchParams({ tag, pieces: String(pieces), gap: String(gapMs) })}`,
    go: async (tag) => {
      const res = await fetch(`${origin}/go?${new URLSearchParams({ tag })}`, { method: 'POST' });
      const body = await res.json();
      if (!res.ok) throw new Error(`the destination could not start stream ${tag}: ${body.error}`);
      return body.started;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
