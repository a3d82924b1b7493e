import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLocalWorker as startLocalWorkerJs } from '../../../scripts/local-worker.mjs';

interface LocalWorker {
  url: string;
  child: { pid?: number };
  stop(): Promise<void>;
}
// scripts/local-worker.mjs is plain JavaScript; this is the part of its signature the tests use.
const startLocalWorker = startLocalWorkerJs as unknown as (options: {
  persistTo: string;
  vars: Record<string, string>;
  timeoutMs: number;
}) => Promise<LocalWorker>;

/** A running `wrangler dev` as the tests reach it. */
export interface WorkerAddress {
  url: string;
  /** Its state folder (local D1 among it), for tests that seed it directly. */
  persistTo: string;
  operatorToken: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The client suite's one `wrangler dev` (helpers/shared-worker.ts). */
    sharedWorker: WorkerAddress;
  }
}

/** `wrangler dev` on loopback with a fresh state folder and the test settings; stop() ends it and removes the folder. */
export async function startFreshWorker(): Promise<WorkerAddress & { stop(): Promise<void> }> {
  const persistTo = await mkdtemp(path.join(tmpdir(), 'svc-client-test-'));
  const operatorToken = randomBytes(16).toString('hex');
  const worker = await startLocalWorker({
    persistTo,
    timeoutMs: 120_000,
    // SVC_STRICT_LIMITS: each invocation counted against Cloudflare's limits (docs/limits.md).
    vars: {
      DEV_IDENTITY: 'true',
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      OPERATOR_TOKEN: operatorToken,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SVC_STRICT_LIMITS: '1',
    },
  });
  // Last resort if the test process ends without stop(): wrangler runs in its own process group.
  const killOnExit = () => {
    try {
      if (worker.child.pid) process.kill(-worker.child.pid, 'SIGKILL');
    } catch {}
  };
  process.once('exit', killOnExit);
  return {
    url: worker.url,
    persistTo,
    operatorToken,
    async stop() {
      process.off('exit', killOnExit);
      await worker.stop();
      await rm(persistTo, { recursive: true, force: true });
    },
  };
}
