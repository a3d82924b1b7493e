import type { Env } from '../env';
import { IsolateCache } from '../platform/isolate-cache';
import { activeOrRefused } from '../platform/projects';
import type { IdentitySettings } from '../platform/types';

/** What a consumption needs of its project. receipt_key keys the receipt hash (see receipt.ts). */
export interface ConsumingProject {
  service_id: string;
  owner_id: string;
  receipt_key: string;
  plan: string;
  active: boolean;
  identity: IdentitySettings | null;
}

/**
 * Projects are read from D1 at most once per this many ms per isolate, so the consumption path
 * rarely waits on D1. A project disabled or deleted is refused everywhere within this time.
 */
const PROJECT_CACHE_MS = 5_000;
const cache = new IsolateCache<ConsumingProject | null>(PROJECT_CACHE_MS);

async function readProject(env: Env, serviceId: string): Promise<ConsumingProject | null> {
  const row = await env.DB.prepare('SELECT service_id, owner_id, owner_key_hash, plan, active, identity FROM projects WHERE service_id = ?')
    .bind(serviceId)
    .first<{ service_id: string; owner_id: string; owner_key_hash: string; plan: string; active: number; identity: string | null }>();
  return row
    ? { service_id: row.service_id, owner_id: row.owner_id, receipt_key: row.owner_key_hash, plan: row.plan, active: row.active === 1, identity: row.identity ? (JSON.parse(row.identity) as IdentitySettings) : null }
    : null;
}

/** The project of a consumption: INVALID_SERVICE when it does not exist, SERVICE_DISABLED when inactive. */
export async function consumingProject(env: Env, serviceId: string): Promise<ConsumingProject> {
  return activeOrRefused(await cache.get(serviceId, () => readProject(env, serviceId)), 'ticket');
}

/** Forgets a cached project (after the operator changes it, in this isolate). */
export const forgetProject = (serviceId: string): void => void cache.delete(serviceId);
