import { parseSecureRequest } from '../../schemas/secure';
import { MAX_SECURE_BODY_BYTES, SECURE_REQUEST_ROUTE } from '../../schemas/secure-rules';
import { checked } from '../../schemas/field-issue';
import { createMiddleware } from 'hono/factory';
import { createRouter, type AppEnv } from '../app';
import { fieldRefusal } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { authRequired } from '../platform/identity';
import { takeRouteFlood } from '../rate-limits/flood';
import { HOP_HEADER, hopsOf } from '../outbound/hops';
import { readJsonBody } from '../platform/validation';
import { secureRequest } from '../secure/mirror';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { route } from '../openapi/route';
import { secureRequestSchema } from '../../schemas/secure';

/** secureRequest (spec 4.3): a signed-in user's request mirrored to the customer's own API. */
export const secureRoutes = createRouter();

const SIGN_IN = 'secureRequest needs a signed-in user of the project: send their id token in Authorization.';
const NOT_A_USER = "secureRequest needs a signed-in user of the project; the owner key is not a user: send a user's id token.";

/** secureRequest's own limit (each call may send up to 50 requests), counted before the guard's. */
const secureFlood = createMiddleware<AppEnv>(async (c, next) => {
  await takeRouteFlood(c.env, 'FLOOD_SECURE', c.req.param('service_id') ?? '', c.req.raw.headers);
  await next();
});

const secureRequestRoute = route({
  operationId: 'secureRequest',
  tag: 'secure',
  guard: guard('visitor'),
  auth: 'id-token',
  body: secureRequestSchema,
  summary:
    "secureRequest: POST { user, data, api_key? } to each url (the customer's API), signed with the project's key (Standard Webhooks); a signed-in user only. When the project lists secure_request_destinations, a url outside them refuses the whole call (INVALID_REQUEST) before anything is sent. A single request that fails answers TIMEOUT (504) or REQUEST_FAILED (502).",
  success: ok('The answer of each request.', answer.secureRequestAnswer),
});

// 'visitor' lets every caller through to this handler, which then answers AUTH_REQUIRED (not UNAUTHORIZED) to all but a user.
secureRoutes.post(`${PROJECT_PATH}${SECURE_REQUEST_ROUTE}`, secureFlood, ...secureRequestRoute.middleware, async (c) => {
  const caller = c.get('caller');
  if (caller.kind !== 'user') throw authRequired(caller.kind === 'owner' ? NOT_A_USER : SIGN_IN);
  const body = await readJsonBody(c, undefined, { maxBytes: MAX_SECURE_BODY_BYTES });
  const call = await checked(() => parseSecureRequest(body));
  if (!call.ok) throw fieldRefusal(call.issue);
  const answer = await secureRequest(
    { env: c.env, serviceId: c.get('project').service_id, user: caller.user, hops: hopsOf(c.req.header(HOP_HEADER)) },
    call.value,
  );
  return new Response(answer, { headers: { 'content-type': 'application/json' } });
});
