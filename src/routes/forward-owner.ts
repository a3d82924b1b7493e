/**
 * The owner's view of forwarding (issue 15): every caller's requests of the project from the history,
 * and one request in full with a streamed request's text. Owner key only; never a secret value.
 */
import { ownerForwardQuerySchema } from '../../schemas/forward-owner';
import { PUBLIC_ID_PATTERN, requestAddressOf } from '../../schemas/forward-rules';
import { checked } from '../../schemas/field-issue';
import { parseOrRefuse } from '../../schemas/issues';
import { createRouter } from '../app';
import { fieldRefusal, SvcHttpError } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageRequest } from '../wire/paging';
import { addressOfRecord, ownerRequestView } from '../forward/owner-history';
import { findOwnerRequest, listOwnerHistory } from '../forward/owner-fan-out';
import { pausedDestinations } from '../forward/destination-report';
import { deadLetterItemOf } from '../forward/dead-letters';
import { DEAD_LETTER_REASONS, deadLetterQuerySchema } from '../../schemas/dead-letters';
import { forwardQueueStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { z } from 'zod';
import { FORWARD_METHODS, FORWARD_STATUSES } from '../../schemas/forward-rules';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';

export const forwardOwnerRoutes = createRouter();

const owner = guard('owner', "Only the project owner can read every caller's forwarded requests.");
const REQUESTS_PATH = `${PROJECT_PATH}/forward/requests`;

const ID_RULE = "Invalid \"id\": must be 'stamp:entropy' or a full request id '<METHOD>:<stamp>:<entropy>:<url>'.";

/** The id of the path: a public id, or a full id (which also names method and url). */
async function requestIdOf(raw: string): Promise<{ id: string; method?: string; url?: string }> {
  if (PUBLIC_ID_PATTERN.test(raw)) return { id: raw };
  const full = await checked(() => requestAddressOf({ id: raw }));
  if (!full.ok) throw new SvcHttpError('INVALID_PARAMETER', ID_RULE, { detail: { field: 'id' } });
  return full.value;
}

const listProjectForwardRequestsRoute = route({
  operationId: 'listProjectForwardRequests',
  tag: 'forward',
  guard: owner,
  query: {
    url: textParameter('Only requests to this url, as written.'),
    method: { description: 'Only this method.', schema: z.enum(FORWARD_METHODS) },
    caller: textParameter("Only this caller's: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
    queue: textParameter('Only queues starting with this (exactly this with queue_exact).'),
    queue_exact: { description: 'Match queue exactly.', schema: z.boolean() },
    queue_exclude: textParameter('Leave out this queue.'),
    status: { description: 'Only this status.', schema: z.enum(FORWARD_STATUSES) },
    stream: { description: 'Only streamed requests (true) or only the others (false).', schema: z.boolean() },
    from: { description: 'Created at or after, ms since the epoch.', schema: z.int().min(0) },
    to: { description: 'Created at or before, ms since the epoch.', schema: z.int().min(0) },
    compact: { description: 'Short texts instead of bodies.', schema: z.boolean() },
    ...PAGING,
  },
  summary: "Every caller's forwarded requests of the project, newest first.",
  success: ok('A page of requests, each with its caller.', answer.listingOf(answer.ownerForwardItemAnswer)),
});

forwardOwnerRoutes.get(REQUESTS_PATH, ...listProjectForwardRequestsRoute.middleware, async (c) => {
  const parsed = await checked(() => parseOrRefuse(ownerForwardQuerySchema, c.req.query()));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  return c.json(await listOwnerHistory(c.env.DB, c.get('project').service_id, parsed.value, pageRequest(c.req), (owner) => forwardQueueStub(c.env, owner)));
});

const listProjectDeadLettersRoute = route({
  operationId: 'listProjectDeadLetters',
  tag: 'forward',
  guard: guard('owner', "Only the project owner can read the project's dead letters."),
  query: {
    caller: textParameter("Only this caller's: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
    reason: { description: 'Only dead letters that failed for this reason.', schema: z.enum(DEAD_LETTER_REASONS) },
    from: { description: 'Made at or after, ms since the epoch.', schema: z.int().min(0) },
    to: { description: 'Made at or before, ms since the epoch.', schema: z.int().min(0) },
    ...PAGING,
  },
  summary:
    "Extension: the project's dead letters, every forwarding caller's (or one caller's), newest first: queued requests sent with retry that failed after their last attempt, with why.",
  success: ok('A page of dead letters.', answer.listingOf(answer.deadLetterAnswer)),
});

forwardOwnerRoutes.get(`${PROJECT_PATH}/forward/dead-letters`, ...listProjectDeadLettersRoute.middleware, async (c) => {
  const parsed = await checked(() => parseOrRefuse(deadLetterQuerySchema, c.req.query()));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  const { reason, limit: _limit, startKey: _startKey, ...filters } = parsed.value;
  const query = { ...filters, compact: true, dead_letter: reason ?? ('any' as const) };
  const page = await listOwnerHistory(c.env.DB, c.get('project').service_id, query, pageRequest(c.req), (owner) => forwardQueueStub(c.env, owner));
  return c.json({ ...page, list: page.list.map(deadLetterItemOf) });
});

const getProjectForwardRequestRoute = route({
  operationId: 'getProjectForwardRequest',
  tag: 'forward',
  guard: owner,
  notFound: true,
  summary: "One forwarded request in full, whoever made it (id: 'stamp:entropy' or the full id, URL-encoded); a streamed request's text.",
  success: ok('The request.', answer.ownerForwardRequestAnswer),
});

forwardOwnerRoutes.get(`${REQUESTS_PATH}/:id`, ...getProjectForwardRequestRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const found = await findOwnerRequest(c.env.DB, serviceId, await requestIdOf(c.req.param('id')), (owner) => forwardQueueStub(c.env, owner));
  if (!found) throw new SvcHttpError('NOT_FOUND', 'Request not found.', { status: 404 });
  const { record } = found;
  // The pieces stay in the caller's queue object until finalized (read-only here).
  const streamText =
    record.stream && record.response_body === undefined ? await forwardQueueStub(c.env, found.owner).streamText(addressOfRecord(record)) : null;
  return c.json(ownerRequestView(found.owner, record, streamText));
});

const listPausedDestinationsRoute = route({
  operationId: 'listPausedDestinations',
  tag: 'forward',
  guard: guard('owner', "Only the project owner can read the project's paused destinations."),
  summary:
    "Extension: the project's paused destinations (open or half-open circuits), longest paused first, at most 200; requests sent with retry to them, and a ticket's runs with a retry_schedule, wait.",
  success: ok('The paused destinations, each with its caller or its ticket.', answer.pausedDestinationsAnswer),
});

forwardOwnerRoutes.get(`${PROJECT_PATH}/destinations`, ...listPausedDestinationsRoute.middleware, async (c) => {
  return c.json({ list: await pausedDestinations(c.env.DB, c.get('project').service_id) });
});
