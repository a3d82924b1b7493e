import { checkForwardDispatch, forwardFinalizeSchema, forwardHistoryQuerySchema, SINCE_RULE, sinceOf } from '../../schemas/forward';
import {
  MAX_DISPATCH_BYTES,
  MAX_FINALIZE_DATA_BYTES,
  MAX_FORWARD_URL,
  queueNameRefusal,
  REQUEST_ID_HEADER,
  requestAddressOf,
  STATUS_CODE_HEADER,
} from '../../schemas/forward-rules';
import { checked } from '../../schemas/field-issue';
import { parseOrRefuse } from '../../schemas/issues';
import { createRouter } from '../app';
import { fieldRefusal } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageRequest } from '../wire/paging';
import { callerOfRequest, type ForwardCaller } from '../forward/caller';
import { dispatchForward } from '../forward/dispatch';
import { listHistory, type HistoryOwner } from '../forward/history';
import { cancelRequest, finalizeRequest, pollRequest, readRequest, withdrawRequest, type RequestPlaces } from '../forward/requests';
import { HOP_HEADER, hopsOf } from '../outbound/hops';
import { readJsonBody } from '../platform/validation';
import type { Env } from '../env';
import type { Caller, Project } from '../platform/types';
import { forwardQueueStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { z } from 'zod';
import { FORWARD_METHODS, FORWARD_STATUSES } from '../../schemas/forward-rules';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { forwardDispatchSchema } from '../../schemas/forward';
import { route, type QueryParameter } from '../openapi/route';

/** Request forwarding (spec 4.3): signed-in users and visitors alike; each reaches only their own requests. */
export const forwardRoutes = createRouter();

const anyone = guard('visitor');
const FORWARD_PATH = `${PROJECT_PATH}/forward`;

/** What a guarded route hands these helpers: the Worker's env, the project, the caller and the request. */
interface Guarded {
  env: Env;
  get(key: 'project'): Project;
  get(key: 'caller'): Caller;
  req: { raw: Request; query(name: string): string | undefined };
}

const callerOf = (c: Guarded): Promise<ForwardCaller> => callerOfRequest(c.get('caller'), c.req.raw.headers);

async function placesOf(c: Guarded): Promise<RequestPlaces> {
  const owner: HistoryOwner = { serviceId: c.get('project').service_id, callerKey: (await callerOf(c)).key };
  return { owner, queues: forwardQueueStub(c.env, owner) };
}

async function checkedAddress(input: { id?: unknown; url?: unknown; method?: unknown }) {
  const address = await checked(() => requestAddressOf(input));
  if (!address.ok) throw fieldRefusal(address.issue);
  return address.value;
}

const addressOf = (c: Guarded) => checkedAddress({ id: c.req.query('id'), url: c.req.query('url'), method: c.req.query('method') });

/** The request's JSON body, refused unless it is an object of at most maxBytes. */
async function objectBody(c: Parameters<typeof readJsonBody>[0], maxBytes: number): Promise<object> {
  const body = await readJsonBody(c, undefined, { maxBytes });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw fieldRefusal({ code: 'INVALID_PARAMETER', message: 'Invalid "body": a JSON object is required.', field: 'body' });
  }
  return body;
}

/** How a caller names one of its requests: the query of the poll, finalize, cancel and withdraw routes. */
const ADDRESS: Record<string, QueryParameter> = {
  id: textParameter("The request's id: 'stamp:entropy' (with url and method) or a full id '<METHOD>:<stamp>:<entropy>:<url>'."),
  url: textParameter('The url the request was made to, as written (needed with a stamp:entropy id).'),
  method: { description: 'The method it was made with (needed with a stamp:entropy id).', schema: z.enum(FORWARD_METHODS) },
};

const forwardRequestRoute = route({
  operationId: 'forwardRequest',
  tag: 'forward',
  guard: anyone,
  body: forwardDispatchSchema,
  tooMany: true,
  summary: 'Send a request for the caller (directly, or queued with a queue name or poll > 0), a Secret Key filled in for $CLIENT_SECRET.',
  success: ok('The relayed answer, the status object of a queued request, or a dry run.', answer.forwardDispatchAnswer),
});

forwardRoutes.post(FORWARD_PATH, ...forwardRequestRoute.middleware, async (c) => {
  const body = await objectBody(c, MAX_DISPATCH_BYTES);
  const dispatch = await checkForwardDispatch(body);
  if (!dispatch.ok) throw fieldRefusal(dispatch.issue);
  const serviceId = c.get('project').service_id;
  const caller = await callerOf(c);
  const answer = await dispatchForward(
    {
      env: c.env,
      serviceId,
      caller,
      queues: () => forwardQueueStub(c.env, { serviceId, callerKey: caller.key }),
      waitUntil: (promise) => c.executionCtx.waitUntil(promise),
      hops: hopsOf(c.req.header(HOP_HEADER)),
    },
    dispatch.value,
  );
  if (answer.kind === 'queued') return c.json(answer.envelope);
  if (answer.kind === 'check') return c.json(answer.answer);
  const headers: Record<string, string> = { [STATUS_CODE_HEADER]: String(answer.statusCode), [REQUEST_ID_HEADER]: answer.id };
  if (answer.contentType) headers['content-type'] = answer.contentType;
  return new Response(answer.body, { status: 200, headers });
});

const pollForwardRequestRoute = route({
  operationId: 'pollForwardRequest',
  tag: 'forward',
  guard: anyone,
  query: {
    ...ADDRESS,
    since: {
      description: 'A cursor: also answer the stored pieces of a streamed request after this seq (a whole number, 0 or more).',
      schema: z.int().min(0),
    },
  },
  notFound: true,
  summary: "The status of one of the caller's requests, with its result once settled (and, with since, its stored pieces).",
  success: ok('The status object.', answer.forwardStatusAnswer),
});

forwardRoutes.get(`${FORWARD_PATH}/request`, ...pollForwardRequestRoute.middleware, async (c) => {
  const cursor = c.req.query('since');
  const address = await addressOf(c);
  if (cursor === undefined) return c.json(await pollRequest(await placesOf(c), address));
  const since = sinceOf(cursor);
  if (since === undefined) throw fieldRefusal({ code: 'INVALID_PARAMETER', message: SINCE_RULE, field: 'since' });
  const answer = await readRequest(await placesOf(c), address, since);
  if (answer.kind === 'envelope') return c.json(answer.envelope);
  return new Response(answer.json, { headers: { 'content-type': 'application/json' } });
});

const finalizeForwardRequestRoute = route({
  operationId: 'finalizeForwardRequest',
  tag: 'forward',
  guard: anyone,
  body: forwardFinalizeSchema,
  summary: "Keep data as a settled streamed request's response and release its pieces.",
  success: ok('Whether it was finalized, and why not.', answer.finalizeAnswer),
});

forwardRoutes.post(`${FORWARD_PATH}/request/finalize`, ...finalizeForwardRequestRoute.middleware, async (c) => {
  // The kept version, its address and the JSON around them.
  const body = await objectBody(c, MAX_FINALIZE_DATA_BYTES + MAX_FORWARD_URL + 1024);
  const parsed = await checked(() => parseOrRefuse(forwardFinalizeSchema, body));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  const address = await checkedAddress(parsed.value);
  return c.json(await finalizeRequest(await placesOf(c), address, JSON.stringify(parsed.value.data ?? null)));
});

const cancelForwardRequestRoute = route({
  operationId: 'cancelForwardRequest',
  tag: 'forward',
  guard: anyone,
  query: ADDRESS,
  summary: 'Remove a pending request or end a running one.',
  success: ok('Whether it was removed, and why not.', answer.removalAnswer),
});

forwardRoutes.delete(`${FORWARD_PATH}/request`, ...cancelForwardRequestRoute.middleware, async (c) =>
  c.json(await cancelRequest(await placesOf(c), await addressOf(c))),
);

const withdrawForwardRequestRoute = route({
  operationId: 'withdrawForwardRequest',
  tag: 'forward',
  guard: anyone,
  query: ADDRESS,
  summary: 'Remove a request only while it still waits in its queue (a client stopped polling it).',
  success: ok('Whether it was removed, and why not.', answer.removalAnswer),
});

forwardRoutes.post(`${FORWARD_PATH}/request/withdraw`, ...withdrawForwardRequestRoute.middleware, async (c) =>
  c.json(await withdrawRequest(await placesOf(c), await addressOf(c))),
);

const forwardRequestQueueCountRoute = route({
  operationId: 'forwardRequestQueueCount',
  tag: 'forward',
  guard: anyone,
  query: { queue: textParameter('The queue name.') },
  summary: "How many of the caller's requests wait or run in a queue.",
  success: ok('The count.', answer.queueCountAnswer),
});

forwardRoutes.get(`${FORWARD_PATH}/queue`, ...forwardRequestQueueCountRoute.middleware, async (c) => {
  const queue = c.req.query('queue') ?? '';
  const problem = queue === '' ? 'is required' : queueNameRefusal(queue);
  if (problem !== undefined) throw fieldRefusal({ code: 'INVALID_PARAMETER', message: `queue: ${problem}`, field: 'queue' });
  const places = await placesOf(c);
  return c.json({ queue_name: queue, in_queue: await places.queues.queueCount(queue) });
});

const forwardRequestHistoryRoute = route({
  operationId: 'forwardRequestHistory',
  tag: 'forward',
  guard: anyone,
  query: {
    url: textParameter('The url, as written.'),
    method: { description: 'The method.', schema: z.enum(FORWARD_METHODS) },
    queue: textParameter('Only queues starting with this (exactly this with queue_exact).'),
    queue_exact: { description: 'Match queue exactly.', schema: z.boolean() },
    queue_exclude: textParameter('Leave out this queue.'),
    status: { description: 'Only this status.', schema: z.enum(FORWARD_STATUSES) },
    compact: { description: 'Short texts instead of bodies.', schema: z.boolean() },
    ...PAGING,
  },
  summary: "The caller's requests to a url and method, newest first.",
  success: ok('A page of requests.', answer.listingOf(answer.requestHistoryAnswer)),
});

forwardRoutes.get(`${FORWARD_PATH}/history`, ...forwardRequestHistoryRoute.middleware, async (c) => {
  const parsed = await checked(() => parseOrRefuse(forwardHistoryQuerySchema, c.req.query()));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  const places = await placesOf(c);
  return c.json(await listHistory(places.queues, places.owner, parsed.value, pageRequest(c.req)));
});
