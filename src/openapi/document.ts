import { z } from 'zod';

/** Who may call a route: how the Authorization header is used. */
export type RouteAuth = 'none' | 'operator' | 'owner' | 'id-token' | 'owner-or-id-token';

export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path, parameters as {name}. */
  path: string;
  summary: string;
  auth: RouteAuth;
  tag: string;
  body?: z.ZodType;
  /** Query parameters: name → description. */
  query?: Record<string, string>;
  /** Success status and what it returns. */
  success?: { status: number; description: string; schema?: z.ZodType };
}

const ERROR_BODY = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'Error code (spec section 7).' },
    message: { type: 'string' },
    stage: { type: 'string', enum: ['ticket', 'condition', 'action'], description: 'Present on ticket consumption errors only.' },
    action: { type: 'object', properties: { act: { type: 'string' }, path: { type: 'string' } } },
    detail: { type: 'object' },
    ticket_id: { type: 'string' },
  },
} as const;

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  none: [],
  operator: [{ operatorToken: [] }],
  owner: [{ ownerKey: [] }],
  'id-token': [{ idToken: [] }],
  'owner-or-id-token': [{ ownerKey: [] }, { idToken: [] }],
};

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'openapi-3.0' });

/** Builds the OpenAPI 3.0 document from the route catalogue and the zod schemas. */
export function openApiDocument(routes: readonly RouteDoc[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters = [
      ...[...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(route.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: {} })),
    ];
    const success = route.success ?? { status: 200, description: 'Success.' };
    paths[route.path] ??= {};
    paths[route.path][route.method] = {
      tags: [route.tag],
      summary: route.summary,
      security: SECURITY[route.auth],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } } } : {}),
      responses: {
        [success.status]: {
          description: success.description,
          content: { 'application/json': { schema: success.schema ? jsonSchema(success.schema) : {} } },
        },
        default: { description: 'A flat error body.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Ticket webhook and request-forwarding service',
      version,
      description: 'Tickets (registered webhook endpoints with conditions and action chains), the owner registry and the platform routes.',
    },
    components: {
      schemas: { Error: ERROR_BODY },
      securitySchemes: {
        operatorToken: { type: 'http', scheme: 'bearer', description: 'The OPERATOR_TOKEN Worker secret.' },
        ownerKey: { type: 'http', scheme: 'bearer', description: 'The project owner key (ok_...).' },
        idToken: { type: 'http', scheme: 'bearer', description: 'An identity-provider id token (JWT) of a project user; the Bearer scheme is optional.' },
      },
    },
    paths,
  };
}

/** Hono's ':name' path parameters as OpenAPI's '{name}'. */
export const toOpenApiPath = (honoPath: string): string => honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
