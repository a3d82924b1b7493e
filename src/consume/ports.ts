import type { SigningKeys } from '../engine/signature';
import type { Env } from '../env';
import { IsolateCache } from '../platform/isolate-cache';
import { loadSecretKey } from '../platform/secrets';

/** How long a TicketDO keeps a decrypted secret in memory (never in storage) before reading it again. */
const SECRET_CACHE_MS = 30_000;

/**
 * Secret values for signature checks, cached briefly so the hot path rarely waits on D1, each with
 * the HMAC keys imported from it (they go with the value when it is read again).
 */
export class SecretCache {
  private readonly entries = new IsolateCache<{ value: string; keys: SigningKeys } | null>(SECRET_CACHE_MS);

  constructor(private readonly env: Env) {}

  value(serviceId: string, name: string): Promise<{ value: string; keys: SigningKeys } | null> {
    return this.entries.get(`${serviceId}/${name}`, async () => {
      const stored = await loadSecretKey(this.env, serviceId, name);
      return stored ? { value: stored.value, keys: new Map() } : null;
    });
  }
}

/** A user may access a record they own or were granted (acsr). */
export async function hasRecordAccess(db: D1Database, serviceId: string, recordId: string, userId: string): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS ok FROM records WHERE service_id = ?1 AND record_id = ?2 AND user_id = ?3
       UNION ALL SELECT 1 FROM record_grants WHERE service_id = ?1 AND record_id = ?2 AND user_id = ?3 LIMIT 1`,
    )
    .bind(serviceId, recordId, userId)
    .first();
  return row !== null;
}
