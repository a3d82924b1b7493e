import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Env } from '../env';
import { constantTimeEqual } from '../platform/crypto';
import { type IdentityProject, authRequired, verifyIdToken } from '../platform/identity';
import { OWNER_KEY_PREFIX, loadActiveProject, verifyOwnerKey } from '../platform/projects';
import type { Caller, Project } from '../platform/types';
import { SvcHttpError } from './errors';

export { verifyIdToken } from '../platform/identity';

/** Hono env of the routes under /v1/projects/{service_id}/...: the active project, once loaded. */
export type ProjectEnv = { Bindings: Env; Variables: { project: Project } };

export type OwnerCaller = Extract<Caller, { kind: 'owner' }>;

const unauthorized = (message: string) => new SvcHttpError('UNAUTHORIZED', message, { status: 401 });

/** The credential of an Authorization header, bare or with the Bearer scheme; undefined when there is none. */
export function credentialOf(header: string | undefined | null): string | undefined {
  const value = header?.trim().replace(/^bearer(\s+|$)/i, '').trim();
  return value ? value : undefined;
}

/** The operator's bearer token must equal OPERATOR_TOKEN (constant-time); else 401 UNAUTHORIZED. */
export function requireOperator(env: Pick<Env, 'OPERATOR_TOKEN'>, header: string | undefined): void {
  const expected = env.OPERATOR_TOKEN?.trim();
  if (!expected) throw new SvcHttpError('INTERNAL_ERROR', 'The operator token (OPERATOR_TOKEN) is not configured.', { status: 500 });
  const token = credentialOf(header);
  if (!token) throw unauthorized('The operator token is required (Authorization: Bearer <token>).');
  if (!constantTimeEqual(token, expected)) throw unauthorized('Invalid operator token.');
}

/** Middleware: loads the project of the `:service_id` path parameter; INVALID_SERVICE or SERVICE_DISABLED (400) otherwise. */
export const activeProject = createMiddleware<ProjectEnv>(async (c, next) => {
  c.set('project', await loadActiveProject(c.env, c.req.param('service_id') ?? ''));
  await next();
});

/** A Hono context of any router of the Worker (the project may or may not be loaded into it yet). */
type WorkerContext = Context<{ Bindings: Env }> | Context<ProjectEnv>;

/** The active project of the request: the one `activeProject` loaded, else the `:service_id` one, loaded now. */
export async function projectOf(c: WorkerContext): Promise<Project> {
  const context = c as Context<ProjectEnv>;
  const loaded = context.get('project');
  if (loaded) return loaded;
  const project = await loadActiveProject(context.env, context.req.param('service_id') ?? '');
  context.set('project', project);
  return project;
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
 * that does not verify: 401 AUTH_REQUIRED; a signed-in user (admins included): 403 INVALID_REQUEST `message`.
 * The project is the one given, else projectOf(c).
 */
export async function requireOwner(c: WorkerContext, message?: string): Promise<OwnerCaller>;
export async function requireOwner(c: WorkerContext, project: Project, message?: string): Promise<OwnerCaller>;
export async function requireOwner(c: WorkerContext, projectOrMessage?: Project | string, maybeMessage?: string): Promise<OwnerCaller> {
  const given = typeof projectOrMessage === 'object' ? projectOrMessage : undefined;
  const message = (typeof projectOrMessage === 'string' ? projectOrMessage : maybeMessage) ?? 'Only the project owner can do this.';
  const project = given ?? (await projectOf(c));
  const token = credentialOf(c.req.header('authorization'));
  if (!token) throw unauthorized('The project owner key is required (Authorization: Bearer <owner key>).');
  if (token.startsWith(OWNER_KEY_PREFIX)) {
    if (await verifyOwnerKey(c.env, project.service_id, token)) return { kind: 'owner', owner_id: project.owner_id };
    throw unauthorized('Invalid owner key.');
  }
  await verifyIdToken(c.env, project, token);
  throw new SvcHttpError('INVALID_REQUEST', message, { status: 403 });
}

/** Middleware form of requireOwner (after activeProject). */
export const ownerOnly = (message?: string) =>
  createMiddleware<ProjectEnv>(async (c, next) => {
    await requireOwner(c, message);
    await next();
  });
