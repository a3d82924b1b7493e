import { z } from 'zod';
import { REALTIME_TOKEN_PARAM } from '../../schemas/forward-rules';
import { NAMED_SCHEMAS } from './answers';

/** Who may call a route: how the Authorization header is used. */
type RouteAuth = 'none' | 'operator' | 'owner' | 'owner-key' | 'id-token' | 'owner-or-id-token' | 'anyone' | 'anyone-socket';

export interface QueryParameter {
  description: string;
  schema: z.ZodType;
}

export interface RouteDoc {
  /** Unique across the document; client generators name their methods after it. */
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path, parameters as {name}. */
  path: string;
  summary: string;
  auth: RouteAuth;
  tag: string;
  body?: z.ZodType;
  /** Whether the body may be left out (the route then uses its defaults). */
  bodyOptional?: boolean;
  query?: Record<string, QueryParameter>;
  /** Success status, what it means, and the JSON it answers. */
  success: { status: number; description: string; schema: z.ZodType };
  /** The route answers 404 NOT_FOUND (or TICKET_NOT_FOUND) when the thing it names does not exist. */
  notFound?: boolean;
  /** The route never refuses input (no parameter, body or credential to get wrong). */
  noRefusals?: boolean;
  /** The route answers 429 with Retry-After when a limit other than the flood limits is reached (a Secret Key's). */
  tooMany?: boolean;
  /** A WebSocket route: success is 101 Switching Protocols, and a request without `Upgrade: websocket` is 426. */
  upgrade?: boolean;
}

const ERROR_BODY = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'Error code (docs/errors.md).' },
    message: { type: 'string' },
    stage: { type: 'string', enum: ['ticket', 'condition', 'action'], description: 'Present on ticket consumption errors only.' },
    action: { type: 'object', properties: { act: { type: 'string' }, path: { type: 'string' } } },
    detail: { type: 'object', description: 'Code-specific facts, such as { field } for INVALID_PARAMETER.' },
    ticket_id: { type: 'string' },
  },
} as const;

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  none: [],
  operator: [{ operatorToken: [] }],
  owner: [{ ownerKey: [] }],
  // The owner key alone names its project (no {service_id} in the path); any other credential is 401.
  'owner-key': [{ ownerKey: [] }],
  'id-token': [{ idToken: [] }],
  'owner-or-id-token': [{ ownerKey: [] }, { idToken: [] }],
  // A visitor calls without a credential; a signed-in user sends an id token.
  anyone: [{}, { idToken: [] }],
  // A browser WebSocket cannot send headers: the id token may come in the URL's query instead.
  'anyone-socket': [{}, { idToken: [] }, { idTokenQuery: [] }],
};

const ERROR_WHEN: Record<number, string> = {
  400: 'Refused input: INVALID_PARAMETER naming the field, or INVALID_SERVICE / SERVICE_DISABLED for the project.',
  401: 'UNAUTHORIZED or AUTH_REQUIRED: no credential, or one that does not verify.',
  403: 'INVALID_REQUEST: a signed-in user (admins included) on an owner-only route.',
  404: 'NOT_FOUND (TICKET_NOT_FOUND for a ticket): the named thing does not exist.',
  426: 'INVALID_REQUEST: a WebSocket route called without Upgrade: websocket.',
  429: "TOO_MANY_REQUESTS: over a flood limit of the caller's address (docs/limits.md) or a Secret Key's limit; Retry-After says when to try again.",
};
const CONSUME_REFUSAL =
  'The ticket refused the consumption: the flat error body with stage, ticket_id and, at stage action, action { act, path }. ' +
  'A ticket whose condition has return200 answers these with 200 once the ticket was read.';

const isConsumeRoute = (route: RouteDoc) => route.tag === 'consume';

/** Routes that count the caller's address in a flood limit (docs/limits.md): all but the operator's and the bare ones. */
const isFloodLimited = (route: RouteDoc) => route.tooMany === true || isConsumeRoute(route) || (route.auth !== 'none' && route.auth !== 'operator');

/** The 4XX statuses a route answers with the flat error body. */
export function errorStatuses(route: RouteDoc): number[] {
  if (route.noRefusals) return [];
  if (isConsumeRoute(route)) return [400, 429];
  const statuses = [400];
  if (route.auth !== 'none') statuses.push(401);
  if (route.auth === 'owner') statuses.push(403);
  if (route.notFound) statuses.push(404);
  if (route.upgrade) statuses.push(426);
  if (isFloodLimited(route)) statuses.push(429);
  return statuses;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const pascal = (text: string) => text[0].toUpperCase() + text.slice(1);

/**
 * The components/schemas of the document: the shared ticket schemas, and each route's body and
 * answer under a name of its own. One zod registry is converted at once, so references between them
 * (the action chains are recursive) are $refs to components, never nested definitions.
 */
function componentSchemas(routes: readonly RouteDoc[]): { schemas: Record<string, unknown>; nameOf: Map<z.ZodType, string> } {
  const registry = z.registry<{ id: string }>();
  const nameOf = new Map<z.ZodType, string>();
  // A schema used by several routes keeps the first name it is given.
  const name = (schema: z.ZodType, wanted: string): void => {
    if (nameOf.has(schema)) return;
    nameOf.set(schema, wanted);
    registry.add(schema, { id: wanted });
  };
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) name(schema, id);
  for (const route of routes) {
    if (route.body) name(route.body, `${pascal(route.operationId)}Body`);
    name(route.success.schema, `${pascal(route.operationId)}Answer`);
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => ref(id).$ref,
  });
  // Recursive schemas without a name (z.json()) land in __shared; each becomes a component of its own.
  const { __shared: shared, ...named } = schemas as Record<string, { $id?: string; definitions?: Record<string, unknown> }>;
  const components: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(shared?.definitions ?? {})) components[`Shared${pascal(id)}`] = schema;
  // $id is JSON Schema's, not OpenAPI 3.0's; the component's name already identifies it.
  for (const [id, { $id: _id, ...schema }] of Object.entries(named)) components[id] = schema;
  const sharedRef = new RegExp(`${ref('__shared').$ref}#/definitions/(\\w+)`, 'g');
  const cleaned = JSON.parse(JSON.stringify(components).replace(sharedRef, (_, id: string) => ref(`Shared${pascal(id)}`).$ref));
  typeNullableRefs(cleaned, cleaned);
  return { schemas: cleaned, nameOf };
}

type SchemaNode = { [key: string]: unknown };

/**
 * OpenAPI 3.0 wants a `type` beside `nullable`; zod writes a nullable named schema as
 * { nullable: true, allOf: [{ $ref }] }, so the type of the component it names is written next to it.
 */
function typeNullableRefs(node: unknown, components: Record<string, SchemaNode>): void {
  if (Array.isArray(node)) {
    for (const item of node) typeNullableRefs(item, components);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as SchemaNode;
  const only = Array.isArray(schema.allOf) && schema.allOf.length === 1 ? (schema.allOf[0] as SchemaNode) : undefined;
  if (schema.nullable === true && schema.type === undefined && typeof only?.$ref === 'string') {
    const type = components[only.$ref.slice(ref('').$ref.length)]?.type;
    if (type !== undefined) schema.type = type;
  }
  for (const value of Object.values(schema)) typeNullableRefs(value, components);
}

function operation(route: RouteDoc, nameOf: Map<z.ZodType, string>): Record<string, unknown> {
  const parameters = [
    ...[...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(route.query ?? {}).map(([name, { description, schema }]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }),
    })),
  ];
  const responses: Record<string, unknown> = {
    [route.success.status]: { description: route.success.description, content: json(ref(nameOf.get(route.success.schema) as string)) },
  };
  for (const status of errorStatuses(route)) {
    responses[status] = { description: isConsumeRoute(route) && status !== 429 ? CONSUME_REFUSAL : ERROR_WHEN[status], content: json(ref('Error')) };
  }
  responses.default = { description: 'An unexpected failure (500 INTERNAL_ERROR), with the flat error body.', content: json(ref('Error')) };
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    security: SECURITY[route.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: json(ref(nameOf.get(route.body) as string)) } } : {}),
    responses,
  };
}

const TAGS: Record<string, string> = {
  platform: 'Health and this document.',
  projects: 'Operator routes: create and change projects.',
  identity: 'Local development identity.',
  secrets: 'Secret Keys of a project (values never leave the service).',
  mail: 'Mail templates, newsletters, subscribers and the local mail outbox.',
  records: 'Records written by tickets (pstr).',
  tickets: 'The ticket registry and its logs.',
  consume: 'Consuming tickets (the webhook endpoints).',
  forward: 'Request forwarding: a request sent for the caller with a Secret Key filled in server side.',
  automation: 'The MCP server for AI agents and automation (docs/automation.md).',
  secure: "secureRequest: a signed-in user's request mirrored to the customer's own API, signed with the project's key.",
};

/** Builds the OpenAPI 3.0 document from the route catalogue and the zod schemas. */
export function openApiDocument(routes: readonly RouteDoc[], version: string): Record<string, unknown> {
  const { schemas, nameOf } = componentSchemas(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][route.method] = operation(route, nameOf);
  }
  const usedTags = new Set(routes.map((route) => route.tag));
  return {
    openapi: '3.0.3',
    info: {
      title: 'Ticket webhook and request-forwarding service',
      version,
      description: 'Tickets (registered webhook endpoints with conditions and action chains), the owner registry, request forwarding and the platform routes.',
    },
    // Relative: the origin this document is served from.
    servers: [{ url: '/', description: 'This service.' }],
    tags: Object.entries(TAGS)
      .filter(([name]) => usedTags.has(name))
      .map(([name, description]) => ({ name, description })),
    components: {
      schemas: { Error: ERROR_BODY, ...schemas },
      securitySchemes: {
        operatorToken: { type: 'http', scheme: 'bearer', description: 'The OPERATOR_TOKEN Worker secret.' },
        ownerKey: { type: 'http', scheme: 'bearer', description: 'The project owner key (ok_...).' },
        idToken: { type: 'http', scheme: 'bearer', description: 'An identity-provider id token (JWT) of a project user; the Bearer scheme is optional.' },
        idTokenQuery: {
          type: 'apiKey',
          in: 'query',
          name: REALTIME_TOKEN_PARAM,
          description: 'An id token in the query string, for WebSocket routes (a browser WebSocket cannot send headers).',
        },
      },
    },
    paths,
  };
}
