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
const startLocalWorker = startLocalWorkerJs as unknown as (options: { persistTo: string; vars: Record<string, string>; timeoutMs: number }) => Promise<LocalWorker>;

const OPERATOR_TOKEN = 'x';

export interface TestProject {
  service_id: string;
  owner_id: string;
  owner_key: string;
}

export interface TestWorker {
  url: string;
  project: TestProject;
  /** The state folder of this `wrangler dev` (local D1 among it), for tests that seed it directly. */
  persistTo: string;
  /** Registers (or replaces) a ticket as the project owner. */
  registerTicket(ticketId: string, ticket: Record<string, unknown>): Promise<void>;
  /** Imports a ticket saved under the previous rules (it runs by them until registered again). */
  importLegacyTicket(ticketId: string, ticket: Record<string, unknown>): Promise<void>;
  /** Stores (or replaces) a Secret Key as the project owner: value, and optionally destinations, access_group, locked. */
  putSecretKey(name: string, body: Record<string, unknown>): Promise<void>;
  /** Sets (or with null clears) the project's secureRequest key, as the operator does. */
  setSecureRequestKey(key: string | null): Promise<void>;
  /** Calls an owner route of the project (`path` after /v1/projects/{service_id}) with the owner key. */
  ownerCall(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** A signed-in user of the project: the built-in development issuer's id token. */
  mintUser(attributes?: Record<string, unknown>): Promise<{ user_id: string; id_token: string }>;
  stop(): Promise<void>;
}

async function call(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

/** `wrangler dev` on loopback with a fresh state folder, and one project in it. */
export async function startTestWorker(): Promise<TestWorker> {
  const persistTo = await mkdtemp(path.join(tmpdir(), 'svc-client-test-'));
  const worker = await startLocalWorker({
    persistTo,
    timeoutMs: 120_000,
    // SVC_STRICT_LIMITS: each invocation counted against Cloudflare's limits (docs/limits.md).
    vars: { DEV_IDENTITY: 'true', ALLOW_PRIVATE_DESTINATIONS: 'true', OPERATOR_TOKEN, SECRETS_KEY: randomBytes(32).toString('base64'), SVC_STRICT_LIMITS: '1' },
  });
  // Last resort if the test process ends without afterAll: wrangler runs in its own process group.
  const killOnExit = () => {
    try {
      if (worker.child.pid) process.kill(-worker.child.pid, 'SIGKILL');
    } catch {}
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    await worker.stop();
    await rm(persistTo, { recursive: true, force: true });
  };
  try {
    const created = await call(`${worker.url}/v1/projects`, 'POST', OPERATOR_TOKEN, { name: 'Client tests' });
    if (created.status !== 201) throw new Error(`project creation failed: ${created.status} ${JSON.stringify(created.json)}`);
    const project: TestProject = created.json;
    const projectUrl = `${worker.url}/v1/projects/${project.service_id}`;
    return {
      url: worker.url,
      project,
      persistTo,
      stop,
      ownerCall: (method, path, body) => call(`${projectUrl}${path}`, method, project.owner_key, body),
      async registerTicket(ticketId, ticket) {
        const res = await call(`${projectUrl}/tickets/${ticketId}`, 'PUT', project.owner_key, ticket);
        if (res.status !== 200 && res.status !== 201) throw new Error(`registration of ${ticketId} failed: ${res.status} ${JSON.stringify(res.json)}`);
      },
      async importLegacyTicket(ticketId, ticket) {
        const res = await call(`${projectUrl}/tickets/${ticketId}/legacy`, 'PUT', project.owner_key, ticket);
        if (res.status !== 200 && res.status !== 201) throw new Error(`import of ${ticketId} failed: ${res.status} ${JSON.stringify(res.json)}`);
      },
      async putSecretKey(name, body) {
        const res = await call(`${projectUrl}/secrets/${name}`, 'PUT', project.owner_key, body);
        if (res.status !== 200 && res.status !== 201) throw new Error(`storing secret key ${name} failed: ${res.status} ${JSON.stringify(res.json)}`);
      },
      async setSecureRequestKey(key) {
        const res = await call(projectUrl, 'PATCH', OPERATOR_TOKEN, { secure_request_key: key });
        if (res.status !== 200) throw new Error(`setting the secureRequest key failed: ${res.status} ${JSON.stringify(res.json)}`);
      },
      async mintUser(attributes = {}) {
        const res = await call(`${projectUrl}/dev/users`, 'POST', project.owner_key, { email: `user${Date.now()}@example.com`, attributes });
        if (res.status !== 200 && res.status !== 201) throw new Error(`user minting failed: ${res.status} ${JSON.stringify(res.json)}`);
        return res.json;
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
