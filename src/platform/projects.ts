import { exportJWK, generateKeyPair } from 'jose';
import { floodLimitsOf } from './flood-limits';
import { IsolateCache } from './isolate-cache';
import type { Env } from '../env';
import { type Stage, SvcHttpError } from '../wire/errors';
import { constantTimeEqualText } from '../bytes/constant-time';
import { decryptText, encryptText, hashSha256Hex, randomBase64Url } from './crypto';
import { serviceMayExist } from './known-services';
import { newServiceId } from './service-ids';
import type { CreateProjectBody, UpdateProjectBody } from './schemas';
import type { IdentitySettings, Plan, Project } from './types';
import { STORED_BYTES_SQL } from './project-storage';
import { type ProjectStorage, storageQuotaOf } from './storage-quota';

export const OWNER_KEY_PREFIX = 'ok_';

/** Additional-data labels that bind each encrypted column to its project. */
export const devPrivateJwkContext = (serviceId: string) => `dev-private-jwk:${serviceId}`;
const secureRequestKeyContext = (serviceId: string) => `secure-request-key:${serviceId}`;

interface ProjectRow {
  service_id: string;
  owner_id: string;
  name: string;
  active: number;
  plan: string;
  identity: string | null;
  secure_request_key_set: number;
  secure_request_destinations: string | null;
  flood_limits: string | null;
  created: number;
  updated: number;
}

const PROJECT_COLUMNS =
  'service_id, owner_id, name, active, plan, identity, secure_request_key_enc IS NOT NULL AS secure_request_key_set, secure_request_destinations, flood_limits, created, updated';

/** The stored list of Destinations (a JSON text, NULL when none is set). */
const destinationsOf = (column: string | null): string[] => (column ? (JSON.parse(column) as string[]) : []);

function toProject(row: ProjectRow): Project {
  return {
    service_id: row.service_id,
    owner_id: row.owner_id,
    name: row.name,
    active: row.active === 1,
    plan: row.plan as Plan,
    identity: row.identity ? (JSON.parse(row.identity) as IdentitySettings) : null,
    secure_request_key_set: row.secure_request_key_set === 1,
    secure_request_destinations: destinationsOf(row.secure_request_destinations),
    flood_limits: floodLimitsOf(row.flood_limits),
    created: row.created,
    updated: row.updated,
  };
}

interface CreatedProject {
  service_id: string;
  owner_id: string;
  /** Shown once; only its SHA-256 hash is stored. */
  owner_key: string;
}

/** Creates a project with a fresh owner, owner key and built-in issuer key pair (ES256). */
export async function createProject(env: Env, body: CreateProjectBody): Promise<CreatedProject> {
  const serviceId = await newServiceId(env);
  const ownerId = crypto.randomUUID();
  const ownerKey = `${OWNER_KEY_PREFIX}${randomBase64Url(32)}`;
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig' };
  const privateJwkEnc = await encryptText(env, JSON.stringify(await exportJWK(privateKey)), devPrivateJwkContext(serviceId));
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO projects (service_id, owner_id, owner_key_hash, name, active, plan, identity, dev_public_jwk, dev_private_jwk_enc, created, updated, id_checked)
     VALUES (?, ?, ?, ?, 1, ?, NULL, ?, ?, ?, ?, 1)`,
  )
    .bind(serviceId, ownerId, await hashSha256Hex(ownerKey), body.name ?? '', body.plan ?? 'free', JSON.stringify(publicJwk), privateJwkEnc, now, now)
    .run();
  return { service_id: serviceId, owner_id: ownerId, owner_key: ownerKey };
}

/** The project, or null when there is none (an id no project can have is never looked up: known-services.ts). */
export async function loadProject(env: Env, serviceId: string): Promise<Project | null> {
  if (!(await serviceMayExist(env, serviceId))) return null;
  const row = await env.DB.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE service_id = ?`).bind(serviceId).first<ProjectRow>();
  return row ? toProject(row) : null;
}

/** The refusal of a project that does not exist; `stage` 'ticket' on the consume path. */
export const invalidService = (stage?: Stage) =>
  new SvcHttpError('INVALID_SERVICE', 'The project does not exist.', { status: 400, ...(stage ? { stage } : {}) });

/**
 * The one check of every project loader (owner routes and the consume path's cache alike): the
 * project if it exists and is active; else INVALID_SERVICE or SERVICE_DISABLED (both 400).
 */
export function activeOrRefused<P extends { active: boolean }>(project: P | null, stage?: Stage): P {
  if (!project) throw invalidService(stage);
  if (!project.active) throw new SvcHttpError('SERVICE_DISABLED', 'The project is not active.', { status: 400, ...(stage ? { stage } : {}) });
  return project;
}

/** The project if it exists and is active; else INVALID_SERVICE or SERVICE_DISABLED (both 400). */
export async function loadActiveProject(env: Env, serviceId: string): Promise<Project> {
  return activeOrRefused(await loadProject(env, serviceId));
}

/** A project as the cached reader keeps it: also the hash its receipts are keyed by and what its tickets' logs store. */
export interface CachedProject extends Project {
  receipt_key: string;
  storage: ProjectStorage;
}

/**
 * Projects are read from D1 at most once per this many ms per isolate, so the consume path and the
 * public routes rarely wait on D1. A project disabled or deleted, or a report that puts it over its
 * storage quota (or back under it), reaches every isolate within this time.
 */
const PROJECT_CACHE_MS = 5_000;
const cachedProjects = new IsolateCache<CachedProject | null>(PROJECT_CACHE_MS);

interface CachedProjectRow extends ProjectRow {
  owner_key_hash: string;
  storage_quota_bytes: number | null;
  stored_bytes: number;
}

/** The project and what it stores: one D1 query. */
async function readCachedProject(env: Env, serviceId: string): Promise<CachedProject | null> {
  const row = await env.DB.prepare(
    `SELECT ${PROJECT_COLUMNS}, owner_key_hash, storage_quota_bytes, ${STORED_BYTES_SQL} AS stored_bytes FROM projects p WHERE p.service_id = ?`,
  )
    .bind(serviceId)
    .first<CachedProjectRow>();
  if (!row) return null;
  const storage = { stored_bytes: row.stored_bytes, quota_bytes: storageQuotaOf(row.plan, row.storage_quota_bytes) };
  return { ...toProject(row), receipt_key: row.owner_key_hash, storage };
}

/**
 * The one cached project reader (the consume path and the public routes): the project if it exists and
 * is active, read through a 5-second cache of this isolate; else INVALID_SERVICE or SERVICE_DISABLED.
 */
export async function cachedActiveProject(env: Env, serviceId: string, stage?: Stage): Promise<CachedProject> {
  // Checked before the cache too, so made-up ids do not fill it and push real projects out.
  if (!(await serviceMayExist(env, serviceId))) throw invalidService(stage);
  return activeOrRefused(await cachedProjects.get(serviceId, () => readCachedProject(env, serviceId)), stage);
}

/** loadActiveProject for the public routes (forwarding), through the cache; never the receipt key or storage. */
export async function loadActiveProjectCached(env: Env, serviceId: string): Promise<Project> {
  const { receipt_key, storage, ...project } = await cachedActiveProject(env, serviceId);
  return project;
}

/** Forgets a cached project in this isolate (after it changes); other isolates see the change within PROJECT_CACHE_MS. */
export const forgetProject = (serviceId: string): void => void cachedProjects.delete(serviceId);

/** Applies the operator's (or the owner's settings) changes; fields left out stay as they are. Unknown project: INVALID_SERVICE. */
export async function updateProject(env: Env, serviceId: string, patch: UpdateProjectBody): Promise<Project> {
  if (!(await serviceMayExist(env, serviceId))) throw invalidService();
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.active !== undefined) set('active', patch.active ? 1 : 0);
  if (patch.plan !== undefined) set('plan', patch.plan);
  if (patch.identity !== undefined) set('identity', patch.identity ? JSON.stringify(patch.identity) : null);
  if (patch.secure_request_key !== undefined) {
    const sealed = patch.secure_request_key === null ? null : await encryptText(env, patch.secure_request_key, secureRequestKeyContext(serviceId));
    set('secure_request_key_enc', sealed);
  }
  if (patch.storage_quota_bytes !== undefined) set('storage_quota_bytes', patch.storage_quota_bytes);
  if (patch.flood_limits !== undefined) set('flood_limits', patch.flood_limits === null ? null : JSON.stringify(patch.flood_limits));
  if (patch.secure_request_destinations !== undefined) {
    const list = patch.secure_request_destinations ?? [];
    set('secure_request_destinations', list.length > 0 ? JSON.stringify(list) : null);
  }
  set('updated', Date.now());
  const row = await env.DB.prepare(`UPDATE projects SET ${sets.join(', ')} WHERE service_id = ? RETURNING ${PROJECT_COLUMNS}`)
    .bind(...values, serviceId)
    .first<ProjectRow>();
  if (!row) throw invalidService();
  forgetProject(serviceId);
  return toProject(row);
}

/**
 * The project an owner key belongs to, or null. The key is 32 random bytes, so finding it by its hash
 * through the index reveals nothing a guess could use; an active check is the caller's.
 */
export async function projectOfOwnerKey(env: Env, ownerKey: string): Promise<Project | null> {
  if (!ownerKey.startsWith(OWNER_KEY_PREFIX)) return null;
  const row = await env.DB.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE owner_key_hash = ?`)
    .bind(await hashSha256Hex(ownerKey))
    .first<ProjectRow>();
  return row ? toProject(row) : null;
}

/** Whether `ownerKey` is this project's owner key (hashes compared in constant time). */
export async function verifyOwnerKey(env: Env, serviceId: string, ownerKey: string): Promise<boolean> {
  const row = await env.DB.prepare('SELECT owner_key_hash FROM projects WHERE service_id = ?').bind(serviceId).first<{ owner_key_hash: string }>();
  const presented = await hashSha256Hex(ownerKey);
  // Compared even when the project is missing, so the answer takes the same time.
  return constantTimeEqualText(presented, row?.owner_key_hash ?? '0'.repeat(64)) && row !== null;
}

/** What secureRequest sends with: the project's key and where it may go, read together from D1 on every call. */
export interface SecureRequestSettings {
  /** The decrypted key, or null when none is set. Never log or return it. */
  key: string | null;
  /** The Destinations every url of a call must match; [] when none is set (any public url). */
  destinations: string[];
}

export async function loadSecureRequestSettings(env: Env, serviceId: string): Promise<SecureRequestSettings> {
  const row = await env.DB.prepare('SELECT secure_request_key_enc, secure_request_destinations FROM projects WHERE service_id = ?')
    .bind(serviceId)
    .first<{ secure_request_key_enc: string | null; secure_request_destinations: string | null }>();
  return {
    key: row?.secure_request_key_enc ? await decryptText(env, row.secure_request_key_enc, secureRequestKeyContext(serviceId)) : null,
    destinations: destinationsOf(row?.secure_request_destinations ?? null),
  };
}
