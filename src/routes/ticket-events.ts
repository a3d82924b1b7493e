import { z } from 'zod';
import { createRouter } from '../app';
import { PROJECT_PATH, guard } from '../http/guards';
import { checked } from '../../schemas/field-issue';
import { parseOrRefuse } from '../../schemas/issues';
import { ERROR_CODE_PATTERN, logSearchQuerySchema, MAX_EQUALS_CHARS, SEARCH_OUTCOMES } from '../../schemas/log-search';
import { ticketStub } from '../platform/object-stubs';
import { SvcHttpError, fieldRefusal, invalidParameter } from '../wire/errors';
import { pageOf, pageRequest } from '../wire/paging';
import type { LogSearchPage } from '../ticket-log/log-search';
import type { LogEvent } from '../ticket-log/log-search-match';
import { logScope } from './ticket-log-source';
import { ticketIdOf } from './ticket-params';
import * as answer from '../../schemas/answers';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';

/**
 * The event inspector (issue 37 item 4, an extension): a ticket's log searched by the server, by outcome,
 * error code, time range and a value in the request as received, a bounded page at a time
 * (src/ticket-log/log-search.ts); and one consumption in full. The spec's log listing (getTickets) stays as it is.
 */
export const ticketEventRoutes = createRouter();

const owner = guard('owner', "Only the project owner can search a ticket's log.");
const EVENTS = `${PROJECT_PATH}/tickets/:ticket_id/events`;
/** A listed event's log_key: its consume_id, with ':CHK' for a dry run, and ':MORE' for a summary of counted entries. */
const LOG_KEY = /^[0-9A-Za-z]{5,32}(?::CHK)?(?::MORE)?$/;

type Position = { t: number; k: string };
const isPosition = (value: unknown): value is Position =>
  typeof value === 'object' &&
  value !== null &&
  Number.isSafeInteger((value as { t?: unknown }).t) &&
  typeof (value as { k?: unknown }).k === 'string' &&
  ((value as { k: string }).k.length ?? 0) <= 200;

const searchTicketEventsRoute = route({
  operationId: 'searchTicketEvents',
  tag: 'tickets',
  guard: owner,
  query: {
    outcome: { description: 'Only consumptions that succeeded (ok), failed, or dry runs (check).', schema: z.enum(SEARCH_OUTCOMES) },
    code: { description: 'Only failures with this error code (upper case).', schema: z.string().regex(ERROR_CODE_PATTERN) },
    from: { description: 'Consumed at or after, ms since the epoch.', schema: z.int().min(0) },
    to: { description: 'Consumed at or before, ms since the epoch.', schema: z.int().min(0) },
    where: textParameter(
      'A path into the request as received: body.<key>[.<key>…] (a number indexes an array), headers.<name> or query.<name>; segments of letters, digits, _ and -, at most 10 below the root. With equals.',
    ),
    equals: {
      description: `The value at where, as text (numbers and booleans as written in JSON); at most ${MAX_EQUALS_CHARS} characters.`,
      schema: z.string(),
    },
    ...PAGING,
  },
  summary:
    "Extension: search a ticket's log, newest first, by outcome, error code, time range and a value in the request as received. Each page walks at most 5,000 entries and reads at most 20 stored segments: a page may hold few or no matches and still hand out a startKey (scanned_to says how far it walked).",
  success: ok('A page of consumptions, with how far the walk went.', answer.logEventsAnswer),
});

ticketEventRoutes.get(EVENTS, ...searchTicketEventsRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const parsed = await checked(() => parseOrRefuse(logSearchQuerySchema, c.req.query()));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  const { outcome, code, from, to, where, equals } = parsed.value;
  const stub = ticketStub(c.env, project.service_id, ticketId);
  let walked: Omit<LogSearchPage, 'events'> = { stoppedAt: null, scanned: 0, segmentReads: 0 };
  const page = await pageOf(pageRequest(c.req), {
    isPosition,
    rows: async (after, count) => {
      const { events, ...rest } = await stub.searchLog(logScope(project, ticketId), {
        from: from ?? 0,
        to: to ?? Number.MAX_SAFE_INTEGER,
        ...(outcome ? { outcome } : {}),
        ...(code ? { code } : {}),
        ...(where && equals !== undefined ? { value: { where, equals } } : {}),
        after,
        count,
      });
      walked = rest;
      return events;
    },
    position: (event: LogEvent): Position => ({ t: event.time, k: event.log_key }),
    resumeAt: () => walked.stoppedAt,
    shape: (event) => event,
  });
  return c.json({ ...page, scanned_to: walked.stoppedAt?.t ?? null, scanned: walked.scanned, segments_read: walked.segmentReads });
});

const getTicketEventRoute = route({
  operationId: 'getTicketEvent',
  tag: 'tickets',
  guard: guard('owner', "Only the project owner can read a ticket's log."),
  notFound: true,
  summary:
    'Extension: one consumption in full, as the event inspector shows it: the request as received (credentials redacted), each action with what it sent and received, and the answer.',
  success: ok('The consumption.', answer.logEventDetailAnswer),
});

ticketEventRoutes.get(`${EVENTS}/:log_key`, ...getTicketEventRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const logKey = c.req.param('log_key') ?? '';
  if (!LOG_KEY.test(logKey))
    throw invalidParameter('Invalid "log_key": a listed event\'s log_key (a consume_id, with ":CHK" for a dry run, ":MORE" for a summary).', {
      field: 'log_key',
    });
  const detail = await ticketStub(c.env, project.service_id, ticketId).logEvent(logScope(project, ticketId), logKey);
  if (!detail) throw new SvcHttpError('NOT_FOUND', "This ticket's log has no entry with this log_key.", { status: 404 });
  return c.json(detail);
});
