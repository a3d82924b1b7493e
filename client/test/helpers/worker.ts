import { inject } from 'vitest';
import { startFreshWorker, type WorkerAddress } from './local-worker.js';

export interface TestProject {
  service_id: string;
  owner_id: string;
  owner_key: string;
}

/** A project of its own on a running `wrangler dev`, and calls to it. */
export interface ProjectOnWorker {
  url: string;
  project: TestProject;
  /** The state folder of the `wrangler dev` (local D1 among it), for tests that seed it directly. */
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

/** A new project, by default on the suite's `wrangler dev` (helpers/shared-worker.ts): this file's own, so files do not see each other's data. */
export async function createTestProject({ url, persistTo, operatorToken }: WorkerAddress = inject('sharedWorker')): Promise<ProjectOnWorker> {
  const created = await call(`${url}/v1/projects`, 'POST', operatorToken, { name: 'Client tests' });
  if (created.status !== 201) throw new Error(`project creation failed: ${created.status} ${JSON.stringify(created.json)}`);
  const project: TestProject = created.json;
  const projectUrl = `${url}/v1/projects/${project.service_id}`;
  return {
    url,
    project,
    persistTo,
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
      const res = await call(projectUrl, 'PATCH', operatorToken, { secure_request_key: key });
      if (res.status !== 200) throw new Error(`setting the secureRequest key failed: ${res.status} ${JSON.stringify(res.json)}`);
    },
    async mintUser(attributes = {}) {
      const res = await call(`${projectUrl}/dev/users`, 'POST', project.owner_key, { email: `user${Date.now()}@example.com`, attributes });
      if (res.status !== 200 && res.status !== 201) throw new Error(`user minting failed: ${res.status} ${JSON.stringify(res.json)}`);
      return res.json;
    },
  };
}

export type TestWorker = ProjectOnWorker & { stop(): Promise<void> };

/** A `wrangler dev` of its own and a project on it, for a suite without the shared one (the CLI's). */
export async function startTestWorker(): Promise<TestWorker> {
  const worker = await startFreshWorker();
  try {
    return { ...(await createTestProject(worker)), stop: worker.stop };
  } catch (err) {
    await worker.stop();
    throw err;
  }
}
