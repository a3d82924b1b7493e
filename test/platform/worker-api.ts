import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import worker from '../../src/index';
import type { Env } from '../../src/env';

export const BASE = 'https://svc.test';
export const OPERATOR_TOKEN = 'test-operator-token';

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as the Authorization header as is. */
  authorization?: string;
  /** JSON-encoded. */
  body?: unknown;
  /** Sent as is. */
  raw?: string;
}

export interface CallResult {
  status: number;
  json: any;
  text: string;
}

function requestInit(method: string, options: CallOptions): RequestInit {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return { method, headers, body };
}

/** Status, text and JSON (undefined when the text is not JSON) of an answer. */
export async function read(res: Response): Promise<CallResult> {
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** Calls the real Worker with its configured bindings. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  return read(await exports.default.fetch(`${BASE}${path}`, requestInit(method, options)));
}

/** Calls the Worker's fetch handler with changed bindings (e.g. DEV_IDENTITY off, SECRETS_KEY missing). */
export async function callWithEnv(changes: Partial<Env>, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, requestInit(method, options)), { ...env, ...changes }, ctx);
  await waitOnExecutionContext(ctx);
  return read(res);
}

export interface TestProject {
  service_id: string;
  owner_id: string;
  owner_key: string;
}

export async function newProject(body: Record<string, unknown> = {}): Promise<TestProject> {
  const res = await call('POST', '/v1/projects', { token: OPERATOR_TOKEN, body });
  if (res.status !== 201) throw new Error(`project creation failed: ${res.status} ${res.text}`);
  return res.json;
}

export async function patchProject(serviceId: string, body: unknown): Promise<CallResult> {
  return call('PATCH', `/v1/projects/${serviceId}`, { token: OPERATOR_TOKEN, body });
}

export async function mintUser(project: TestProject, body: Record<string, unknown> = {}): Promise<{ user_id: string; id_token: string }> {
  const res = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { token: project.owner_key, body });
  if (res.status !== 200) throw new Error(`user minting failed: ${res.status} ${res.text}`);
  return res.json;
}
