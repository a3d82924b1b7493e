import type { Env } from '../env';
import { IsolateCache } from '../platform/isolate-cache';
import { STORED_BYTES_SQL } from '../platform/project-storage';
import { activeOrRefused, invalidService } from '../platform/projects';
import { serviceMayExist } from '../platform/known-services';
import { type ProjectStorage, refuseOverStorageQuota, storageQuotaOf } from '../platform/storage-quota';
import { floodLimitsOf } from '../platform/flood-limits';
import type { FloodLimits, IdentitySettings } from '../platform/types';

/** What a consumption needs of its project. receipt_key keys the receipt hash (see receipt.ts). */
export interface ConsumingProject {
  service_id: string;
  owner_id: string;
  receipt_key: string;
  plan: string;
  active: boolean;
  identity: IdentitySettings | null;
  /** What its tickets' logs store, as last reported, against its quota. */
  storage: ProjectStorage;
  /** The limits its consume routes count callers in (src/http/flood.ts). */
  flood: FloodLimits;
}

/**
 * Projects are read from D1 at most once per this many ms per isolate, so the consumption path
 * rarely waits on D1. A project disabled or deleted, or a report that puts it over its storage quota
 * (or back under it), reaches every isolate within this time.
 */
const PROJECT_CACHE_MS = 5_000;
const cache = new IsolateCache<ConsumingProject | null>(PROJECT_CACHE_MS);

interface ProjectRow {
  service_id: string;
  owner_id: string;
  owner_key_hash: string;
  plan: string;
  active: number;
  identity: string | null;
  storage_quota_bytes: number | null;
  stored_bytes: number;
  flood_limits: string | null;
}

/** The project and what it stores: one D1 query. */
async function readProject(env: Env, serviceId: string): Promise<ConsumingProject | null> {
  const row = await env.DB.prepare(
    `SELECT p.service_id, p.owner_id, p.owner_key_hash, p.plan, p.active, p.identity, p.storage_quota_bytes, p.flood_limits, ${STORED_BYTES_SQL} AS stored_bytes
       FROM projects p WHERE p.service_id = ?`,
  )
    .bind(serviceId)
    .first<ProjectRow>();
  return row
    ? {
        service_id: row.service_id,
        owner_id: row.owner_id,
        receipt_key: row.owner_key_hash,
        plan: row.plan,
        active: row.active === 1,
        identity: row.identity ? (JSON.parse(row.identity) as IdentitySettings) : null,
        storage: { stored_bytes: row.stored_bytes, quota_bytes: storageQuotaOf(row.plan, row.storage_quota_bytes) },
        flood: floodLimitsOf(row.flood_limits),
      }
    : null;
}

/**
 * The project of a consumption: INVALID_SERVICE when it does not exist, SERVICE_DISABLED when
 * inactive, QUOTA_EXCEEDED when its storage quota is used up (every consumption, dry runs included,
 * writes a log entry), all before anything else is read or written.
 */
export async function consumingProject(env: Env, serviceId: string): Promise<ConsumingProject> {
  // No D1 query (nor cache entry) for an id no project can have, however many are sent.
  if (!(await serviceMayExist(env, serviceId))) throw invalidService('ticket');
  const project = activeOrRefused(await cache.get(serviceId, () => readProject(env, serviceId)), 'ticket');
  refuseOverStorageQuota(project.storage, 'ticket');
  return project;
}

/** Forgets a cached project (after the operator changes it, in this isolate). */
export const forgetProject = (serviceId: string): void => void cache.delete(serviceId);
