/** Calls of secureRequest through the real Worker, and the project setting its key. */
import { inject } from 'vitest';
import { call, OPERATOR_TOKEN, type TestProject } from '../helpers/api';

export const origin = inject('loopbackOrigin');

export const secureRequest = (project: TestProject, body: unknown, token?: string) =>
  call('POST', `/v1/projects/${project.service_id}/secure-request`, { body, ...(token ? { token } : {}) });

/** Sets (or with null clears) the project's secureRequest key, as the operator does. */
export async function setSecureKey(project: TestProject, key: string | null): Promise<void> {
  const res = await call('PATCH', `/v1/projects/${project.service_id}`, { token: OPERATOR_TOKEN, body: { secure_request_key: key } });
  if (res.status !== 200) throw new Error(`setting the key failed: ${res.status} ${res.text}`);
}

/** Tells the loopback's /webhook/<name> which key to verify with; answers the url to mirror to. */
export async function verifyingApi(key: string): Promise<string> {
  const name = crypto.randomUUID();
  await fetch(`${origin}/webhook-key/${name}`, { method: 'POST', body: key });
  return `${origin}/webhook/${name}`;
}

/** Changes the project's secureRequest settings as the operator does; answers the route's reply. */
export const patchSecureSettings = (project: TestProject, body: { secure_request_key?: string | null; secure_request_destinations?: unknown }) =>
  call('PATCH', `/v1/projects/${project.service_id}`, { token: OPERATOR_TOKEN, body });

/** Sets (or with null clears) the Destinations of the project's secureRequest key. */
export async function setSecureDestinations(project: TestProject, destinations: string[] | null): Promise<void> {
  const res = await patchSecureSettings(project, { secure_request_destinations: destinations });
  if (res.status !== 200) throw new Error(`setting the destinations failed: ${res.status} ${res.text}`);
}
