/** One route's OpenAPI operation, made from its declaration (route.ts); hono-openapi adds the path and its parameters. */
import { z } from 'zod';
import type { RouteAuth, RouteDoc } from './route';

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

/** `names` are the component names of the route's body and answer schemas. */
export function operationOf(route: RouteDoc, names: { body?: string; answer: string }): Record<string, unknown> {
  const parameters = [
    ...Object.entries(route.query ?? {}).map(([name, { description, schema }]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }),
    })),
  ];
  const responses: Record<string, unknown> = {
    [route.success.status]: { description: route.success.description, content: json(ref(names.answer)) },
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
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: json(ref(names.body as string)) } } : {}),
    responses,
  };
}
