/** The storage quota of a project (pure): which figure applies, and the refusal once it is used up. */
import { type Stage, SvcHttpError } from '../wire/errors';
import { STORAGE_QUOTA_BYTES } from '../limits';

/** What a project stores (as its tickets last reported it) against what it may. */
export interface ProjectStorage {
  stored_bytes: number;
  quota_bytes: number;
}

/** The operator's figure for the project if set, else its plan's; an unknown plan gets the free quota. */
export const storageQuotaOf = (plan: string, override: number | null): number =>
  override ?? (Object.hasOwn(STORAGE_QUOTA_BYTES, plan) ? STORAGE_QUOTA_BYTES[plan] : STORAGE_QUOTA_BYTES.free);

/** QUOTA_EXCEEDED (400) when the project stores as much as its quota or more; anything that would store more is refused. */
export function refuseOverStorageQuota(storage: ProjectStorage, stage?: Stage): void {
  if (storage.stored_bytes < storage.quota_bytes) return;
  throw new SvcHttpError(
    'QUOTA_EXCEEDED',
    `The project's storage quota of ${storage.quota_bytes} bytes is used up (${storage.stored_bytes} bytes stored): clear ticket logs or raise the plan.`,
    { status: 400, ...(stage ? { stage } : {}), detail: { ...storage } },
  );
}
