import { exports } from 'cloudflare:workers';

export const BASE = 'https://svc.test';
export const OPERATOR_TOKEN = 'test-operator-token';

export async function call(method: string, path: string, options: { token?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.raw;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await exports.default.fetch(`${BASE}${path}`, { method, headers, body });
  const text = await res.text();
  let json: any = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

export interface TestProject {
  service_id: string;
  owner_id: string;
  owner_key: string;
}

export async function createProject(body: Record<string, unknown> = {}): Promise<TestProject> {
  const res = await call('POST', '/v1/projects', { token: OPERATOR_TOKEN, body });
  if (res.status !== 201) throw new Error(`project creation failed: ${res.status} ${res.text}`);
  return res.json;
}

export async function mintUser(project: TestProject, body: Record<string, unknown> = {}): Promise<{ user_id: string; id_token: string }> {
  const res = await call('POST', `/v1/projects/${project.service_id}/dev/users`, { token: project.owner_key, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`user minting failed: ${res.status} ${res.text}`);
  return res.json;
}

export async function registerTicket(project: TestProject, ticketId: string, ticket: Record<string, unknown>) {
  const res = await call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key, body: ticket });
  if (res.status !== 200 && res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return res.json;
}

export async function putSecret(project: TestProject, name: string, value: string, extra: Record<string, unknown> = {}) {
  const res = await call('PUT', `/v1/projects/${project.service_id}/secrets/${name}`, { token: project.owner_key, body: { value, ...extra } });
  if (res.status !== 200 && res.status !== 201) throw new Error(`secret failed: ${res.status} ${res.text}`);
  return res.json;
}
