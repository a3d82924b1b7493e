/** Calls of the page to the project's API with the owner key (this origin only). */
import type { ServiceErrorBody } from '../../schemas/error-body';

/** What the sign-in form keeps in this tab's sessionStorage. */
export interface Session {
  service_id: string;
  owner_key: string;
}

/** A refusal as the page shows it, whether the server sent it or the page found it: `CODE: message`. */
export const refusalText = (refusal: Pick<ServiceErrorBody, 'code' | 'message'>): string => `${refusal.code}: ${refusal.message}`;

/** Calls `/v1/projects/{service_id}{path}` as the owner; a refusal throws an Error whose message is its refusalText. */
export async function callProject<T>(session: Session, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/v1/projects/${session.service_id}${path}`, {
    method,
    headers: { authorization: `Bearer ${session.owner_key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new Error(isErrorBody(json) ? refusalText(json) : `HTTP ${res.status}`);
  return json as T;
}

function isErrorBody(value: unknown): value is ServiceErrorBody {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value;
}
