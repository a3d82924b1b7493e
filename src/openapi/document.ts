import { z } from 'zod';
import { REALTIME_TOKEN_PARAM } from '../../schemas/forward-rules';
import type { Hono } from 'hono';
import { generateSpecs } from 'hono-openapi';
import { namedSchemas, servedRoutes } from './route';

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

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const pascal = (text: string) => text[0].toUpperCase() + text.slice(1);

/**
 * The components/schemas of the document: the shared ticket schemas, and each route's body and answer
 * under the name its declaration gave it (route.ts). One zod registry is converted at once, so references
 * between them (the action chains are recursive) are $refs to components, never nested definitions.
 */
function componentSchemas(names: ReadonlyMap<z.ZodType, string>): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
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
  return cleaned;
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
  alerts:
    'Alert rules and the incidents they open (an extension): failure rate, failures in a row, latency, flood refusals, dead letters, paused destinations.',
  secure: "secureRequest: a signed-in user's request mirrored to the customer's own API, signed with the project's key.",
};

/** Builds the OpenAPI 3.0 document from the declarations of the routes `app` serves (hono-openapi walks its route table). */
export async function openApiDocument(app: Hono<any, any, any>, version: string): Promise<Record<string, unknown>> {
  const usedTags = new Set(servedRoutes(app).map((route) => route.doc.tag));
  return generateSpecs(app, {
    excludeStaticFile: false,
    documentation: {
      openapi: '3.0.3',
      info: {
        title: 'Ticket webhook and request-forwarding service',
        version,
        description:
          'Tickets (registered webhook endpoints with conditions and action chains), the owner registry, request forwarding and the platform routes.',
      },
      // Relative: the origin this document is served from.
      servers: [{ url: '/', description: 'This service.' }],
      tags: Object.entries(TAGS)
        .filter(([name]) => usedTags.has(name))
        .map(([name, description]) => ({ name, description })),
      components: {
        schemas: { Error: ERROR_BODY, ...componentSchemas(namedSchemas()) },
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
    } as never,
  }) as Promise<Record<string, unknown>>;
}
