/**
 * What the customer's API receives (the seed's wire form): `{ user, data, api_key? }`. `user` is what a
 * ticket's `${user}` reads: user_id, access_group, email when known, and the attributes of the user's id
 * token (every claim that is not a protocol claim; the server's own fields win over a claim of that name).
 */
import type { ProjectUser } from '../platform/types';

export function mirroredUser(user: ProjectUser): Record<string, unknown> {
  const view: Record<string, unknown> = { user_id: user.user_id, access_group: user.access_group };
  if (user.email !== undefined) view.email = user.email;
  for (const [key, value] of Object.entries(user.attributes)) if (!(key in view)) view[key] = value;
  return view;
}

/** The JSON text POSTed to the customer's API; `api_key` only when the project has a secureRequest key. */
export function mirroredBody(user: ProjectUser, data: unknown, apiKey: string | null): string {
  return JSON.stringify({ user: mirroredUser(user), data: data === undefined ? null : data, ...(apiKey === null ? {} : { api_key: apiKey }) });
}
