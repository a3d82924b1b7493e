import type { ExecutionContext } from 'hono';
import type { Env } from '../env';

/** The Worker's own fetch (app.fetch), passed in by src/router.ts so src/mcp never imports the router. */
export type AppFetch = (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;

/** An HTTP answer of an owner route: its status and its JSON body (undefined when it is not JSON). */
export interface HttpAnswer {
  status: number;
  json: unknown;
}

/** A route as its declaration (src/openapi/route.ts) gives it: the method and the OpenAPI path. */
export interface DeclaredCall {
  method: string;
  path: string;
}

/** The declared route of an operationId, from the app's route table (passed in by src/router.ts). */
export type RouteTable = (operationId: string) => DeclaredCall;

/** What a tool fills in: the path's parameters (service_id aside), the query and the JSON body. */
export interface CallArguments {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/**
 * Calls one of the project's owner routes by its operationId, with the caller's own Authorization header
 * (and address, which the routes' flood limit counts): the method and path are the route's declaration.
 */
export type OwnerApi = (operationId: string, args?: CallArguments) => Promise<HttpAnswer>;

/**
 * The owner API dispatched in-process through the Worker's router: every refusal is the registry's
 * own code and message, and no request leaves the isolate.
 */
export function ownerApi(
  appFetch: AppFetch,
  routes: RouteTable,
  env: Env,
  ctx: ExecutionContext,
  origin: string,
  serviceId: string,
  caller: Headers,
): OwnerApi {
  return async (operationId, { params = {}, query = {}, body } = {}) => {
    const { method, path } = routes(operationId);
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(name === 'service_id' ? serviceId : (params[name] ?? '')));
    const headers: Record<string, string> = { authorization: caller.get('authorization') ?? '' };
    const address = caller.get('cf-connecting-ip');
    if (address !== null) headers['cf-connecting-ip'] = address;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const request = new Request(`${origin}${filled}${queryOf(query)}`, {
      method: method.toUpperCase(),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const response = await appFetch(request, env, ctx);
    const text = await response.text();
    return { status: response.status, json: parseJson(text) };
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A query string of the given parameters, the undefined ones left out ('' when none is left). */
function queryOf(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}`;
}
