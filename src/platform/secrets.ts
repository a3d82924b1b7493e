import type { Env } from '../env';
import { decryptText, encryptText } from './crypto';
import { IsolateCache } from './isolate-cache';
import type { SecretKeyBody, SecretKeyLimits } from './schemas';

/** A secret key as the owner sees it: everything but the value. */
export interface SecretKeyInfo {
  name: string;
  destinations: string[];
  access_group: number;
  locked: boolean;
  limits: SecretKeyLimits;
  created: number;
  updated: number;
}

/** A secret key as forwarding and the req action use it. */
export interface SecretKey {
  name: string;
  value: string;
  destinations: string[];
  access_group: number;
  locked: boolean;
  limits: SecretKeyLimits;
}

interface SecretKeyRow {
  name: string;
  value_enc?: string;
  destinations: string;
  access_group: number;
  locked: number;
  limits: string;
  created: number;
  updated: number;
}

const INFO_COLUMNS = 'name, destinations, access_group, locked, limits, created, updated';

/** Additional data binding a sealed value to its project and name. */
const secretContext = (serviceId: string, name: string) => `secret-key:${serviceId}:${name}`;

const toInfo = (row: SecretKeyRow): SecretKeyInfo => ({
  name: row.name,
  destinations: JSON.parse(row.destinations) as string[],
  access_group: row.access_group,
  locked: row.locked === 1,
  limits: JSON.parse(row.limits) as SecretKeyLimits,
  created: row.created,
  updated: row.updated,
});

/** Creates or replaces a secret key (fields left out take their defaults; `created` survives a replace). */
export async function putSecretKey(env: Env, serviceId: string, name: string, body: SecretKeyBody): Promise<SecretKeyInfo> {
  const sealed = await encryptText(env, body.value, secretContext(serviceId, name));
  const now = Date.now();
  const row = await env.DB.prepare(
    `INSERT INTO secret_keys (service_id, name, value_enc, destinations, access_group, locked, limits, created, updated)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?8, ?7, ?7)
     ON CONFLICT (service_id, name) DO UPDATE SET
       value_enc = excluded.value_enc, destinations = excluded.destinations, access_group = excluded.access_group,
       locked = excluded.locked, limits = excluded.limits, updated = excluded.updated
     RETURNING ${INFO_COLUMNS}`,
  )
    .bind(serviceId, name, sealed, JSON.stringify(body.destinations ?? []), body.access_group ?? 0, body.locked ? 1 : 0, now, JSON.stringify(body.limits ?? {}))
    .first<SecretKeyRow>();
  dispatchKeys.delete(cacheKey(serviceId, name));
  return toInfo(row as SecretKeyRow);
}

export async function listSecretKeys(env: Env, serviceId: string): Promise<SecretKeyInfo[]> {
  const { results } = await env.DB.prepare(`SELECT ${INFO_COLUMNS} FROM secret_keys WHERE service_id = ? ORDER BY name`).bind(serviceId).all<SecretKeyRow>();
  return results.map(toInfo);
}

export async function getSecretKeyInfo(env: Env, serviceId: string, name: string): Promise<SecretKeyInfo | null> {
  const row = await env.DB.prepare(`SELECT ${INFO_COLUMNS} FROM secret_keys WHERE service_id = ? AND name = ?`).bind(serviceId, name).first<SecretKeyRow>();
  return row ? toInfo(row) : null;
}

export async function deleteSecretKey(env: Env, serviceId: string, name: string): Promise<boolean> {
  const result = await env.DB.prepare('DELETE FROM secret_keys WHERE service_id = ? AND name = ?').bind(serviceId, name).run();
  dispatchKeys.delete(cacheKey(serviceId, name));
  return result.meta.changes > 0;
}

/** The one Secret Key cache (dispatch of a forwarded request, a ticket's signature check): a change reaches every isolate within this time. */
const DISPATCH_KEY_CACHE_MS = 5_000;
const dispatchKeys = new IsolateCache<SecretKey | null>(DISPATCH_KEY_CACHE_MS);
const cacheKey = (serviceId: string, name: string) => `${serviceId}/${name}`;

/**
 * loadSecretKey through a 5-second cache of this isolate, for the checks at dispatch of a forwarded
 * request and a ticket's signature checks; a queued request is checked again right before it is sent
 * with loadSecretKey itself.
 */
export function loadSecretKeyCached(env: Env, serviceId: string, name: string): Promise<SecretKey | null> {
  return dispatchKeys.get(cacheKey(serviceId, name), () => loadSecretKey(env, serviceId, name));
}

/** The secret key with its decrypted value, or null. Never log or return the value. */
export async function loadSecretKey(env: Env, serviceId: string, name: string): Promise<SecretKey | null> {
  const row = await env.DB.prepare(`SELECT value_enc, ${INFO_COLUMNS} FROM secret_keys WHERE service_id = ? AND name = ?`)
    .bind(serviceId, name)
    .first<SecretKeyRow>();
  if (!row?.value_enc) return null;
  const info = toInfo(row);
  return {
    name: info.name,
    value: await decryptText(env, row.value_enc, secretContext(serviceId, name)),
    destinations: info.destinations,
    access_group: info.access_group,
    locked: info.locked,
    limits: info.limits,
  };
}
