/**
 * One declaration per route, beside its handler: `route({...})` names the guard, the request schemas, the
 * answer schema and the OpenAPI text once. Its middleware (hono-openapi's describeRoute, then the guard)
 * go first in the Hono registration, which gives the method and the path; /openapi.json is collected
 * from the app's own route table (document.ts), so a route cannot be documented apart from what it serves.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { findTargetHandler } from 'hono/utils/handler';
import { describeRoute, type DescribeRouteOptions } from 'hono-openapi';
import type { z } from 'zod';
import { NAMED_SCHEMAS } from '../../schemas/answers';
import type { Guard, GuardAuth } from '../http/guards';
import { readJsonBody } from '../platform/validation';
import { operationOf } from './operation';

/** Who may call a route: how the Authorization header is used. A guard says it itself; a route without one names it. */
export type RouteAuth = GuardAuth | 'none' | 'owner-key' | 'id-token' | 'anyone-socket';

export interface QueryParameter {
  description: string;
  schema: z.ZodType;
}

/** What the document says of a route. */
export interface RouteDoc {
  /** Unique across the document; client generators name their methods after it. */
  operationId: string;
  summary: string;
  auth: RouteAuth;
  tag: string;
  body?: z.ZodType;
  /** Whether the body may be left out (the route then uses its defaults). */
  bodyOptional?: boolean;
  query?: Record<string, QueryParameter>;
  /** Success status, what it means, and the JSON it answers. */
  success: { status: number; description: string; schema: z.ZodType };
  /** The route answers 404 NOT_FOUND (or TICKET_NOT_FOUND for a ticket) when the thing it names does not exist. */
  notFound?: boolean;
  /** The route never refuses input (no parameter, body or credential to get wrong). */
  noRefusals?: boolean;
  /** The route answers 429 with Retry-After when a limit other than the flood limits is reached (a Secret Key's). */
  tooMany?: boolean;
  /** A WebSocket route: success is 101 Switching Protocols, and a request without `Upgrade: websocket` is 426. */
  upgrade?: boolean;
}

type AnyGuard = Guard<any>;
type RouteSpec<G extends AnyGuard | undefined, B extends z.ZodType | undefined> = Omit<RouteDoc, 'auth' | 'body'> & { body?: B } & (G extends AnyGuard
    ? { guard: G; auth?: RouteAuth }
    : { guard?: undefined; auth: RouteAuth });

export interface DeclaredRoute<G extends AnyGuard | undefined, B extends z.ZodType | undefined> {
  doc: RouteDoc;
  /** The request body's schema, for the handler's readJsonBody. */
  body: B;
  /** Spread first into the Hono registration: the description, then the guard. */
  middleware: G extends AnyGuard ? readonly [MiddlewareHandler, G] : readonly [MiddlewareHandler];
}

/** Marks the describing middleware with its declaration, so the app's route table leads back to it. */
const DECLARATION = Symbol('route declaration');
/** The component name of each schema in the document: the shared ones first, then `<OperationId>Body`/`Answer`, first name kept. */
const schemaNames = new Map<z.ZodType, string>(Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [schema, name]));

const pascal = (text: string) => text[0].toUpperCase() + text.slice(1);
const nameOnce = (schema: z.ZodType, wanted: string): string => {
  if (!schemaNames.has(schema)) schemaNames.set(schema, wanted);
  return schemaNames.get(schema) as string;
};

export function route<B extends z.ZodType | undefined = undefined>(spec: RouteSpec<undefined, B>): DeclaredRoute<undefined, B>;
export function route<G extends AnyGuard, B extends z.ZodType | undefined = undefined>(spec: RouteSpec<G, B>): DeclaredRoute<G, B>;
export function route(spec: RouteSpec<AnyGuard | undefined, z.ZodType | undefined>): DeclaredRoute<AnyGuard | undefined, z.ZodType | undefined> {
  const { guard, ...text } = spec;
  const doc: RouteDoc = { ...text, auth: spec.auth ?? (guard as AnyGuard).auth };
  const names = {
    body: doc.body && nameOnce(doc.body, `${pascal(doc.operationId)}Body`),
    answer: nameOnce(doc.success.schema, `${pascal(doc.operationId)}Answer`),
  };
  const describe = Object.assign(describeRoute(operationOf(doc, names) as DescribeRouteOptions), { [DECLARATION]: doc });
  return { doc, body: spec.body, middleware: guard ? [describe, guard] : [describe] } as DeclaredRoute<AnyGuard | undefined, z.ZodType | undefined>;
}

export interface ServedRoute {
  method: string;
  /** OpenAPI form: parameters as {name}. */
  path: string;
  doc: RouteDoc;
}

/** The declared routes `app` serves, from its own route table. */
export function servedRoutes(app: Hono<any, any, any>): ServedRoute[] {
  return app.routes.flatMap((served) => {
    const doc = (findTargetHandler(served.handler) as { [DECLARATION]?: RouteDoc })[DECLARATION];
    return doc ? [{ method: served.method.toLowerCase(), path: served.path.replace(/:(\w+)/g, '{$1}'), doc }] : [];
  });
}

/** The route `app` serves as `operationId`: the MCP tools call it, tests parse real answers with its schema. */
export function servedRoute(app: Hono<any, any, any>, operationId: string): ServedRoute {
  const found = servedRoutes(app).find((served) => served.doc.operationId === operationId);
  if (!found) throw new Error(`No route is declared as ${operationId}.`);
  return found;
}

/** Reads a request's body as its route declares it: validated by the body schema, and `{}` when left out of a route whose body is optional. */
export function readBody<B extends z.ZodType>(c: { req: { raw: Request } }, declared: DeclaredRoute<AnyGuard | undefined, B>): Promise<z.infer<B>> {
  return readJsonBody(c, declared.body, { optional: declared.doc.bodyOptional === true });
}

/** The schemas the document's components hold, by the name the operations refer to. */
export const namedSchemas = (): ReadonlyMap<z.ZodType, string> => schemaNames;
