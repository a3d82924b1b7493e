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
