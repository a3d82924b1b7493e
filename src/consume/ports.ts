import type { SigningKeys } from '../engine/signature';
import type { Env } from '../env';
import { loadSecretKeyCached, type SecretKey } from '../platform/secrets';

const keysBySecret = new WeakMap<SecretKey, SigningKeys>();

/**
 * The secret of a signature check, read through the one Secret Key cache (loadSecretKeyCached), with the
 * HMAC keys imported from its value: they are kept with the cached key and go when it is read again.
 */
export async function signingSecret(env: Env, serviceId: string, name: string): Promise<{ value: string; keys: SigningKeys } | null> {
  const secret = await loadSecretKeyCached(env, serviceId, name);
  if (!secret) return null;
  let keys = keysBySecret.get(secret);
  if (!keys) keysBySecret.set(secret, (keys = new Map()));
  return { value: secret.value, keys };
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
