import type { Env } from '../env';
import { constantTimeEqualText } from '../bytes/constant-time';
import { type IdentityProject, authRequired, verifyIdToken } from '../platform/identity';
import { OWNER_KEY_PREFIX, activeOrRefused, projectOfOwnerKey, verifyOwnerKey } from '../platform/projects';
import type { Caller, Project } from '../platform/types';
import { SvcHttpError } from '../wire/errors';

export { verifyIdToken } from '../platform/identity';

export type OwnerCaller = Extract<Caller, { kind: 'owner' }>;

const unauthorized = (message: string) => new SvcHttpError('UNAUTHORIZED', message, { status: 401 });

/** The credential of an Authorization header, bare or with the Bearer scheme; undefined when there is none. */
function credentialOf(header: string | undefined | null): string | undefined {
  const value = header
    ?.trim()
    .replace(/^bearer(\s+|$)/i, '')
    .trim();
  return value ? value : undefined;
}

/** The operator's bearer token must equal OPERATOR_TOKEN (constant-time); else 401 UNAUTHORIZED. */
export function requireOperator(env: Pick<Env, 'OPERATOR_TOKEN'>, header: string | undefined): void {
  const expected = env.OPERATOR_TOKEN?.trim();
  if (!expected) throw new SvcHttpError('INTERNAL_ERROR', 'The operator token (OPERATOR_TOKEN) is not configured.', { status: 500 });
  const token = credentialOf(header);
  if (!token) throw unauthorized('The operator token is required (Authorization: Bearer <token>).');
  if (!constantTimeEqualText(token, expected)) throw unauthorized('Invalid operator token.');
}

/**
 * Who is calling: no credential = anonymous; the owner key = owner; an id token = that user.
 * Anything else (a wrong owner key, a token that does not verify for this project) is AUTH_REQUIRED (401).
 */
export async function resolveCaller(env: Env, project: IdentityProject & Pick<Project, 'owner_id'>, authorizationHeader: string | undefined): Promise<Caller> {
  const token = credentialOf(authorizationHeader);
  if (!token) return { kind: 'anonymous' };
  if (token.startsWith(OWNER_KEY_PREFIX)) {
    if (await verifyOwnerKey(env, project.service_id, token)) return { kind: 'owner', owner_id: project.owner_id };
    throw authRequired('Invalid owner key.');
  }
  return { kind: 'user', user: await verifyIdToken(env, project, token) };
}

/**
 * Lets only the project owner through. No credential or a wrong owner key: 401 UNAUTHORIZED; a token
 * that does not verify: 401 AUTH_REQUIRED; a signed-in user (admins included): 403 INVALID_REQUEST `refusal`.
 */
export async function requireOwner(env: Env, project: Project, authorizationHeader: string | undefined, refusal: string): Promise<OwnerCaller> {
  const token = credentialOf(authorizationHeader);
  if (!token) throw unauthorized('The project owner key is required (Authorization: Bearer <owner key>).');
  if (token.startsWith(OWNER_KEY_PREFIX)) {
    if (await verifyOwnerKey(env, project.service_id, token)) return { kind: 'owner', owner_id: project.owner_id };
    throw unauthorized('Invalid owner key.');
  }
  await verifyIdToken(env, project, token);
  throw new SvcHttpError('INVALID_REQUEST', refusal, { status: 403 });
}

/**
 * The project of the owner key in the Authorization header, for routes that name no project (GET
 * /v1/owner, /mcp). No credential, an id token or a key of no project: 401 UNAUTHORIZED; an inactive
 * project: SERVICE_DISABLED (400).
 */
export async function projectOfOwnerCredential(env: Env, authorizationHeader: string | undefined): Promise<Project> {
  const token = credentialOf(authorizationHeader);
  if (!token) throw unauthorized('The project owner key is required (Authorization: Bearer <owner key>).');
  if (!token.startsWith(OWNER_KEY_PREFIX)) throw unauthorized('Only a project owner key is accepted here (an id token is not).');
  const project = await projectOfOwnerKey(env, token);
  if (!project) throw unauthorized('Invalid owner key.');
  return activeOrRefused(project);
}
