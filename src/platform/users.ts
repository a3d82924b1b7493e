import type { Env } from '../env';
import type { ClaimedUser } from './claims';
import type { ProjectUser } from './types';

/** Access group of a user seen for the first time. */
const DEFAULT_ACCESS_GROUP = 1;

interface UserRow {
  user_id: string;
  email: string | null;
  attributes: string;
  access_group: number;
}

function toUser(row: UserRow): ProjectUser {
  return {
    user_id: row.user_id,
    ...(row.email !== null ? { email: row.email } : {}),
    access_group: row.access_group,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
  };
}

export async function loadUser(env: Env, serviceId: string, userId: string): Promise<ProjectUser | null> {
  const row = await env.DB.prepare('SELECT user_id, email, attributes, access_group FROM users WHERE service_id = ? AND user_id = ?')
    .bind(serviceId, userId)
    .first<UserRow>();
  return row ? toUser(row) : null;
}

/**
 * The stored user a verified token stands for. A user seen for the first time is inserted with
 * access group 1. With `refreshFromToken` (external issuers: the provider owns the profile) the
 * stored email and attributes follow the token's claims; the access group is never taken from a token.
 */
export async function ensureUser(env: Env, serviceId: string, claimed: ClaimedUser, refreshFromToken: boolean): Promise<ProjectUser> {
  const stored = await loadUser(env, serviceId, claimed.user_id);
  const attributes = JSON.stringify(claimed.attributes);
  const email = claimed.email ?? null;
  if (stored) {
    const changed = JSON.stringify(stored.attributes) !== attributes || (stored.email ?? null) !== email;
    if (!refreshFromToken || !changed) return stored;
    await env.DB.prepare('UPDATE users SET email = ?, attributes = ?, updated = ? WHERE service_id = ? AND user_id = ?')
      .bind(email, attributes, Date.now(), serviceId, claimed.user_id)
      .run();
    return { ...stored, ...(email !== null ? { email } : {}), attributes: claimed.attributes };
  }
  const now = Date.now();
  // DO NOTHING + re-read: two first requests of the same user at once both end with the one stored row.
  await env.DB.prepare(
    `INSERT INTO users (service_id, user_id, email, attributes, access_group, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (service_id, user_id) DO NOTHING`,
  )
    .bind(serviceId, claimed.user_id, email, attributes, DEFAULT_ACCESS_GROUP, now, now)
    .run();
  return (await loadUser(env, serviceId, claimed.user_id)) as ProjectUser;
}

export interface DevUserInput {
  user_id: string;
  email?: string;
  attributes?: Record<string, unknown>;
  access_group?: number;
}

/** Creates or updates a user of the built-in issuer; fields left out keep their stored value (new user: group 1, no attributes). */
export async function upsertDevUser(env: Env, serviceId: string, input: DevUserInput): Promise<ProjectUser> {
  const attributes = input.attributes === undefined ? null : JSON.stringify(input.attributes);
  const row = await env.DB.prepare(
    `INSERT INTO users (service_id, user_id, email, attributes, access_group, created, updated)
     VALUES (?1, ?2, ?3, COALESCE(?4, '{}'), COALESCE(?5, ${DEFAULT_ACCESS_GROUP}), ?6, ?6)
     ON CONFLICT (service_id, user_id) DO UPDATE SET
       email = COALESCE(?3, email), attributes = COALESCE(?4, attributes), access_group = COALESCE(?5, access_group), updated = ?6
     RETURNING user_id, email, attributes, access_group`,
  )
    .bind(serviceId, input.user_id, input.email ?? null, attributes, input.access_group ?? null, Date.now())
    .first<UserRow>();
  return toUser(row as UserRow);
}

/** Sets a user's server-side access group (1..99); false when the user does not exist. */
export async function setUserAccessGroup(env: Env, serviceId: string, userId: string, accessGroup: number): Promise<boolean> {
  const result = await env.DB.prepare('UPDATE users SET access_group = ?, updated = ? WHERE service_id = ? AND user_id = ?')
    .bind(accessGroup, Date.now(), serviceId, userId)
    .run();
  return result.meta.changes > 0;
}
