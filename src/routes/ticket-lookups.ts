import type { RegistrationLookups } from '../../schemas/ticket';
import type { Env } from '../env';
import { newsletterExists, secretExists, templateExists } from '../platform/resources';

/** What a registration looks up in the project: the resources its actions name must exist. */
export const registrationLookups = (env: Env, serviceId: string): RegistrationLookups => ({
  secretExists: (name) => secretExists(env, serviceId, name),
  templateExists: (id) => templateExists(env, serviceId, id),
  newsletterExists: (group, messageId) => newsletterExists(env, serviceId, group, messageId),
});
