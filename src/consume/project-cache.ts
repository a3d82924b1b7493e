import type { Env } from '../env';
import { cachedActiveProject } from '../platform/projects';
import { type ProjectStorage, refuseOverStorageQuota } from '../platform/storage-quota';
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
  /** The limits its consume routes count callers in (src/rate-limits/flood.ts). */
  flood: FloodLimits;
}

/**
 * The project of a consumption: INVALID_SERVICE when it does not exist, SERVICE_DISABLED when
 * inactive, QUOTA_EXCEEDED when its storage quota is used up (every consumption, dry runs included,
 * writes a log entry), all before anything else is read or written.
 */
export async function consumingProject(env: Env, serviceId: string): Promise<ConsumingProject> {
  const project = await cachedActiveProject(env, serviceId, 'ticket');
  refuseOverStorageQuota(project.storage, 'ticket');
  const { service_id, owner_id, receipt_key, plan, active, identity, storage, flood_limits } = project;
  return { service_id, owner_id, receipt_key, plan, active, identity, storage, flood: flood_limits };
}
