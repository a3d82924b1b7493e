import { REALTIME_ROUTE, REALTIME_TOKEN_PARAM } from '../../schemas/forward-rules';
import { createRouter } from '../app';
import { resolveCaller } from '../http/auth';
import { SvcHttpError } from '../wire/errors';
import { takeRouteFlood } from '../rate-limits/flood';
import { PROJECT_PATH } from '../http/guards';
import { callerOfRequest } from '../forward/caller';
import { loadActiveProjectCached } from '../platform/projects';
import { realtimeStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { route } from '../openapi/route';
import { textParameter } from '../openapi/route-parts';

/**
 * The realtime socket (spec 6.2): one WebSocket per client, reaching the caller's RealtimeDO, where it joins
 * the room of the streamed request it reads. Open to visitors and signed-in callers, like forwarding.
 */
export const realtimeRoutes = createRouter();

const openRealtimeSocketRoute = route({
  operationId: 'openRealtimeSocket',
  tag: 'forward',
  auth: 'anyone-socket',
  upgrade: true,
  query: { [REALTIME_TOKEN_PARAM]: textParameter("A signed-in caller's id token (a browser WebSocket cannot send headers; Authorization works too).") },
  summary:
    "The realtime WebSocket (GET with Upgrade: websocket): join the room of a streamed request's realtime_group with {type:'join',group}, leave with {type:'leave'}, and receive each stored piece as a piece frame.",
  success: {
    status: 101,
    description: 'Switching Protocols: the socket. Every frame the server sends is one JSON text of this shape.',
    schema: answer.realtimeServerFrameAnswer,
  },
});

realtimeRoutes.get(`${PROJECT_PATH}${REALTIME_ROUTE}`, ...openRealtimeSocketRoute.middleware, async (c) => {
  await takeRouteFlood(c.env, 'FLOOD_CALLER', c.req.param('service_id'), c.req.raw.headers);
  const project = await loadActiveProjectCached(c.env, c.req.param('service_id'));
  // A browser WebSocket cannot send headers: a signed-in caller's id token comes on the URL instead.
  const token = c.req.query(REALTIME_TOKEN_PARAM);
  const credential = token === undefined ? c.req.header('authorization') : `Bearer ${token}`;
  const caller = await resolveCaller(c.env, project, credential);
  // A URL ends up in logs: the project's long-lived key is only taken in the Authorization header.
  if (token !== undefined && caller.kind === 'owner') {
    throw new SvcHttpError('AUTH_REQUIRED', 'The owner key is not accepted on a URL: send it in the Authorization header.', { status: 401 });
  }
  // The caller key of the forwarding routes, so the socket reaches the object its requests push to.
  const { key } = await callerOfRequest(caller, c.req.raw.headers);
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new SvcHttpError('INVALID_REQUEST', 'Expected a WebSocket upgrade.', { status: 426 });
  }
  // The object sees the route's URL without its query, so no token is kept in a socket's attachment.
  const url = new URL(c.req.url);
  url.search = '';
  return realtimeStub(c.env, { serviceId: project.service_id, callerKey: key }).fetch(url, { headers: { upgrade: 'websocket' } });
});
