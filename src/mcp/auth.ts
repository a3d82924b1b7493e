import type { Env } from '../env';
import { credentialOf } from '../http/auth';
import { SvcHttpError } from '../http/errors';
import { OWNER_KEY_PREFIX, activeOrRefused, projectOfOwnerKey } from '../platform/projects';
import type { Project } from '../platform/types';

const unauthorized = (message: string) => new SvcHttpError('UNAUTHORIZED', message, { status: 401 });

/**
 * The project of the owner key in the Authorization header: the key alone names it. No key, an id
 * token or any other credential, a key no project has: 401 UNAUTHORIZED; an inactive project: 400 SERVICE_DISABLED.
 */
export async function requireOwnerKeyProject(env: Env, authorizationHeader: string | undefined): Promise<Project> {
  const key = credentialOf(authorizationHeader);
  if (!key) throw unauthorized('The project owner key is required (Authorization: Bearer <owner key>).');
  if (!key.startsWith(OWNER_KEY_PREFIX)) throw unauthorized('Only the project owner key is accepted here (Authorization: Bearer ok_…); an id token or another credential is not.');
  const project = await projectOfOwnerKey(env, key);
  if (!project) throw unauthorized('Invalid owner key.');
  return activeOrRefused(project);
}
