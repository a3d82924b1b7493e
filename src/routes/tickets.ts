import { z } from 'zod';
import { validateLegacyImport } from '../../schemas/legacy/import';
import { TICKET_ID_PATTERN, validateTicketRegistration, type RegistrationLookups, type ValidatedTicket } from '../../schemas/ticket';
import type { Checked } from '../../schemas/field-issue';
import type { StoredTicket } from '../../schemas/ticket-types';
import { createRouter } from '../app';
import { fieldRefusal, invalidParameter, SvcHttpError } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageOf, pageRequest } from '../wire/paging';
import { parseOutcome, parseTicketsQuery, parseTimeRange } from '../ticket-log/listing-query';
import { listActionRows, listTicketLog } from '../ticket-log/log-queries';
import { readJsonBody } from '../platform/validation';
import { logScope, ticketLogSource } from './ticket-log-source';
import { registrationLookups } from './ticket-lookups';
import { ownerView, publicView } from './ticket-views';
import { deleteDirectoryEntry, directoryEntry, listDirectory, saveDirectoryEntry } from '../platform/ticket-directory';
import { noteTicket } from '../consume/ticket-ids';
import type { Env } from '../env';
import type { Project } from '../platform/types';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { LOG_OUTCOMES } from '../ticket-log/listing-query';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { legacyImportSchema } from '../../schemas/legacy/import';
import { readBody, route } from '../openapi/route';
import { ticketRegistrationSchema } from '../../schemas/ticket';

const registrar = guard('owner', 'Only the project owner can register tickets.');
const notATicketId = () => invalidParameter('Invalid "ticket_id": not a ticket id.', { field: 'ticket_id' });

/** Ticket registry (owner) and getTickets listing. */
export const ticketRoutes = createRouter();

type Validator = (ticketId: string, input: unknown, lookups: RegistrationLookups, now: number) => Promise<Checked<ValidatedTicket>>;

const registerTicketRoute = route({
  operationId: 'registerTicket',
  tag: 'tickets',
  guard: registrar,
  body: ticketRegistrationSchema,
  summary: 'Register or replace a ticket (owner only; a project user, admin included, gets INVALID_REQUEST).',
  success: { status: 201, description: 'The stored ticket as the owner lists it (200 on update).', schema: answer.ownerTicketAnswer },
});

/** Registration applies the current rules; a legacy import keeps the previous ones (schemas/legacy/import.ts). */
ticketRoutes.put(`${PROJECT_PATH}/tickets/:ticket_id`, ...registerTicketRoute.middleware, async (c) => {
  const saved = await saveTicket(c.env, c.get('project'), c.req.param('ticket_id'), await readJsonBody(c), validateTicketRegistration);
  return c.json(saved.view, saved.created ? 201 : 200);
});

const importLegacyTicketRoute = route({
  operationId: 'importLegacyTicket',
  tag: 'tickets',
  guard: registrar,
  body: legacyImportSchema,
  summary:
    'Import a ticket saved under the previous rules (owner only): the renames of spec 9.3 applied, stored with legacy: true, it runs by the previous rules (spec 9.2) until registered again. See docs/migrating.md.',
  success: { status: 201, description: 'The stored ticket as the owner lists it (200 on update), legacy: true.', schema: answer.ownerTicketAnswer },
});

ticketRoutes.put(`${PROJECT_PATH}/tickets/:ticket_id/legacy`, ...importLegacyTicketRoute.middleware, async (c) => {
  const saved = await saveTicket(c.env, c.get('project'), c.req.param('ticket_id'), await readJsonBody(c), validateLegacyImport);
  return c.json(saved.view, saved.created ? 201 : 200);
});

async function saveTicket(env: Env, project: Project, ticketId: string, input: unknown, validate: Validator) {
  const now = Date.now();
  const registration = await validate(ticketId, input, registrationLookups(env, project.service_id), now);
  if (!registration.ok) throw fieldRefusal(registration.issue);
  const { ticket, count } = registration.value;
  const previous = await directoryEntry(env, project.service_id, ticketId);
  // A blank count keeps the count registered before (and what is left of it, in the TicketDO).
  const registered = count !== undefined ? count : (previous?.count ?? null);
  const stored: StoredTicket = { ...ticket, count: registered, timestamp: previous?.timestamp ?? now, updated: now };
  // The engine's copy first: a consumption after this answer always sees the new definition.
  const remaining = await ticketStub(env, project.service_id, ticketId).store(stored, count);
  await saveDirectoryEntry(env, project.service_id, stored);
  noteTicket(env, project.service_id, ticketId);
  return { view: ownerView(stored, remaining), created: !previous };
}

const deleteTicketRoute = route({
  operationId: 'deleteTicket',
  tag: 'tickets',
  guard: registrar,
  notFound: true,
  summary: 'Delete a ticket and its per-user counters; its log stays.',
  success: ok('Deleted.', answer.ticketDeletedAnswer),
});

ticketRoutes.delete(`${PROJECT_PATH}/tickets/:ticket_id`, ...deleteTicketRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = c.req.param('ticket_id');
  // Refused before an object is made for a name no ticket can have.
  if (!TICKET_ID_PATTERN.test(ticketId)) throw notATicketId();
  const removed = await ticketStub(c.env, project.service_id, ticketId).remove();
  const listed = await deleteDirectoryEntry(c.env, project.service_id, ticketId);
  if (!removed && !listed) throw new SvcHttpError('TICKET_NOT_FOUND', 'The ticket does not exist.', { status: 404 });
  return c.json({ deleted: true, ticket_id: ticketId });
});

const getTicketsRoute = route({
  operationId: 'getTickets',
  tag: 'tickets',
  guard: guard('user', 'Sign in to list tickets: send an id token or the owner key.'),
  query: {
    ticket_id: textParameter("One ticket; the owner may pass '#<ticket_id>#' (consumption log) or '@<ticket_id>#<consume_id>#' (action rows)."),
    from: { description: 'Log listings: from this time (ms).', schema: z.int().min(0) },
    to: { description: 'Log listings: up to this time (ms).', schema: z.int().min(0) },
    outcome: { description: "The consumption log only: rows of one outcome, 'ok', 'failed' or 'check' (dry runs).", schema: z.enum(LOG_OUTCOMES) },
    ...PAGING,
  },
  summary: 'getTickets: every field for the owner, the public subset for a signed-in user; log listings for the owner.',
  success: ok('A page of tickets, or of log rows.', answer.ticketsAnswer),
});

/**
 * getTickets: every field for the owner, the public subset for a signed-in user. The owner's log ids
 * list logs instead: '#<ticket_id>#' the consumption log (optionally of one outcome), '@<ticket_id>#<consume_id>#' the action rows.
 */
ticketRoutes.get(`${PROJECT_PATH}/tickets`, ...getTicketsRoute.middleware, async (c) => {
  const project = c.get('project');
  const isOwner = c.get('caller').kind === 'owner';
  const query = parseTicketsQuery(c.req.query('ticket_id'), isOwner);
  const range = parseTimeRange(c.req.query('from'), c.req.query('to'));
  const outcome = parseOutcome(c.req.query('outcome'), query.kind);
  const request = pageRequest(c.req);
  if (query.kind === 'log') return c.json(await listTicketLog(ticketLogSource(c.env, project, query.ticket_id), range, request, outcome));
  if (query.kind === 'actions') {
    return c.json(await listActionRows(ticketLogSource(c.env, project, query.ticket_id), query.consume_id, range, request));
  }
  if (range.given) {
    throw invalidParameter('"from" and "to" apply to a log listing only (ticket_id "#<ticket_id>#" or "@<ticket_id>#<consume_id>#").', {
      field: c.req.query('from') ? 'from' : 'to',
    });
  }
  const page = await pageOf(request, {
    isPosition: (value): value is string => typeof value === 'string',
    rows: (after, count) => listDirectory(c.env, project.service_id, after, count, query.ticket_id),
    position: (ticket) => ticket.ticket_id,
    shape: async (ticket) => {
      const { remaining } = await ticketStub(c.env, project.service_id, ticket.ticket_id).status();
      return isOwner ? ownerView(ticket, remaining) : publicView(ticket, remaining);
    },
  });
  return c.json(page);
});

const CLEARING = 'SUCCESS: Clearing the log.';
const notATime = { error: 'not a time in milliseconds since the epoch' };
export const clearLogBody = z.strictObject({ before: z.number(notATime).int(notATime).min(0, notATime).nullish() });

const clearTicketLogRoute = route({
  operationId: 'clearTicketLog',
  tag: 'tickets',
  guard: guard('owner', 'Only the project owner can clear a ticket log.'),
  body: clearLogBody,
  bodyOptional: true,
  summary: "clearTicketLog: delete the ticket's log rows before `before` (default now), in the background.",
  success: ok('Clearing has started.', answer.logClearingAnswer),
});

/**
 * clearTicketLog: deletes the ticket's consumption and action rows older than `before` (default and
 * at most now) in the background; the ticket, its count and per-user counters are untouched. Works
 * for a deleted ticket too, whose log is kept.
 */
ticketRoutes.post(`${PROJECT_PATH}/tickets/:ticket_id/clear-log`, ...clearTicketLogRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = c.req.param('ticket_id');
  if (!TICKET_ID_PATTERN.test(ticketId)) throw notATicketId();
  const { before: asked } = await readBody(c, clearTicketLogRoute);
  const now = Date.now();
  const before = asked == null ? now : Math.min(asked, now);
  await ticketStub(c.env, project.service_id, ticketId).clearLog(logScope(project, ticketId), before);
  return c.json({ message: CLEARING, ticket_id: ticketId, before });
});
