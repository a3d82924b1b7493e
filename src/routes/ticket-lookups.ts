import type { RegistrationLookups } from '../../schemas/ticket';
import { importPublicKey } from '../engine/public-key';
import type { Env } from '../env';
import { newsletterExists, secretExists, templateExists } from '../platform/resources';
import { loadSecretKey } from '../platform/secrets';

/** What a registration looks up in the project: the resources its actions name must exist. */
export const registrationLookups = (env: Env, serviceId: string): RegistrationLookups => ({
  secretExists: (name) => secretExists(env, serviceId, name),
  templateExists: (id) => templateExists(env, serviceId, id),
  newsletterExists: (group, messageId) => newsletterExists(env, serviceId, group, messageId),
  // A public-key signature's Secret Key must import as a key of its algorithm (the value is read here only).
  publicKeyUsable: async (name, algorithm) => {
    const stored = await loadSecretKey(env, serviceId, name);
    return stored !== null && (await importPublicKey(algorithm, stored.value)) !== undefined;
  },
});
