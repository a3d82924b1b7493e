import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Env } from '../env';
import { loadActiveProject, loadActiveProjectCached } from '../platform/projects';
import type { Caller, Project } from '../platform/types';
import { type OwnerCaller, requireOperator, requireOwner, resolveCaller } from './auth';
import { SvcHttpError } from '../wire/errors';
import { takeRouteFlood } from '../rate-limits/flood';

/** The path every project route starts with; the guard reads its `:service_id`. */
export const PROJECT_PATH = '/v1/projects/:service_id';

type SignedInCaller = Exclude<Caller, { kind: 'anonymous' }>;

/** What a guarded route's handler reads: c.get('project') and c.get('caller'). */
type GuardedEnv<C extends Caller> = { Bindings: Env; Variables: { project: Project; caller: C } };

/** Whom a guard admits, in the OpenAPI document's words (src/openapi/route.ts): a route's declaration names its guard once. */
export type GuardAuth = 'owner' | 'owner-or-id-token' | 'anyone' | 'operator';
export type Guard<E extends { Bindings: Env } = GuardedEnv<Caller>> = MiddlewareHandler<E> & { readonly auth: GuardAuth };

const ADMITS: Record<'owner' | 'user' | 'visitor', GuardAuth> = { owner: 'owner', user: 'owner-or-id-token', visitor: 'anyone' };

/**
 * The one guard of project routes, first on each route: loads the active project of `:service_id`
 * (INVALID_SERVICE / SERVICE_DISABLED, 400) and lets in
 * - 'owner': the owner key only (see requireOwner); a signed-in user is 403 INVALID_REQUEST `refusal`;
 * - 'user': the owner or a signed-in user; no credential is 401 UNAUTHORIZED `refusal`;
 * - 'visitor': anyone, anonymous included (the project read through a 5-second cache: a public route).
 * With 'user' and 'visitor' a wrong owner key or an id token that does not verify is 401 AUTH_REQUIRED.
 * Before all that, the caller's address is counted (src/rate-limits/flood.ts): in the owner routes' limit for
 * 'owner', else in the callers' limit.
 */
export function guard(who: 'owner', refusal: string): Guard<GuardedEnv<OwnerCaller>>;
export function guard(who: 'user', refusal: string): Guard<GuardedEnv<SignedInCaller>>;
export function guard(who: 'visitor'): Guard<GuardedEnv<Caller>>;
export function guard(
  who: 'owner' | 'user' | 'visitor',
  refusal = '',
): Guard<GuardedEnv<OwnerCaller>> | Guard<GuardedEnv<SignedInCaller>> | Guard<GuardedEnv<Caller>> {
  const middleware = createMiddleware<GuardedEnv<Caller>>(async (c, next) => {
    const serviceId = c.req.param('service_id') ?? '';
    await takeRouteFlood(c.env, who === 'owner' ? 'FLOOD_OWNER' : 'FLOOD_CALLER', serviceId, c.req.raw.headers);
    // Public routes read the project through a short cache, as the consume path does.
    const project = await (who === 'visitor' ? loadActiveProjectCached : loadActiveProject)(c.env, serviceId);
    const header = c.req.header('authorization');
    const caller = who === 'owner' ? await requireOwner(c.env, project, header, refusal) : await resolveCaller(c.env, project, header);
    if (who === 'user' && caller.kind === 'anonymous') throw new SvcHttpError('UNAUTHORIZED', refusal, { status: 401 });
    c.set('project', project);
    c.set('caller', caller);
    await next();
  });
  return Object.assign(middleware, { auth: ADMITS[who] });
}

/** The guard of the operator routes: Authorization: Bearer OPERATOR_TOKEN, else 401 UNAUTHORIZED (see requireOperator). */
export const operatorOnly: Guard<{ Bindings: Env }> = Object.assign(
  createMiddleware<{ Bindings: Env }>(async (c, next) => {
    requireOperator(c.env, c.req.header('authorization'));
    await next();
  }),
  { auth: 'operator' as const },
);
