import { validateTicketRegistration, type RegistrationLookups } from '../../schemas/ticket';
import type { StoredTicket } from '../../schemas/ticket-types';
import { ticketStub } from '../../durable-objects/ticket-do';
import { createRouter } from '../app';
import { requireOwner, resolveCaller } from '../http/auth';
import { SvcHttpError } from '../http/errors';
import { decodeStartKey, encodeStartKey, pageSize, type DatabaseResponse } from '../http/paging';
import { loadActiveProject } from '../platform/projects';
import { newsletterExists, secretExists, templateExists } from '../platform/resources';
import { readJsonBody } from '../platform/validation';
import { deleteDirectoryEntry, directoryEntry, listDirectory, saveDirectoryEntry } from '../platform/ticket-directory';
import type { Env } from '../env';

const OWNER_ONLY = 'Only the project owner can register tickets.';

/** Ticket registry (owner) and getTickets listing. */
export const ticketRoutes = createRouter();

const lookups = (env: Env, serviceId: string): RegistrationLookups => ({
  secretExists: (name) => secretExists(env, serviceId, name),
  templateExists: (id) => templateExists(env, serviceId, id),
  newsletterExists: (group, messageId) => newsletterExists(env, serviceId, group, messageId),
});

ticketRoutes.put('/v1/projects/:sid/tickets/:ticket_id', async (c) => {
  const project = await loadActiveProject(c.env, c.req.param('sid'));
  await requireOwner(c, project, OWNER_ONLY);
  const ticketId = c.req.param('ticket_id');
  const input = await readJsonBody(c);
  const now = Date.now();
  const { ticket, count } = await validateTicketRegistration(ticketId, input, lookups(c.env, project.service_id), now);
  const previous = await directoryEntry(c.env, project.service_id, ticketId);
  const stored: StoredTicket = { ...ticket, timestamp: previous?.timestamp ?? now, updated: now, rules_version: 2 };
  // The engine's copy first: a consumption after this answer always sees the new definition.
  const remaining = await ticketStub(c.env, project.service_id, ticketId).store(stored, count);
  await saveDirectoryEntry(c.env, project.service_id, stored);
  return c.json(ownerView(stored, remaining), previous ? 200 : 201);
});

ticketRoutes.delete('/v1/projects/:sid/tickets/:ticket_id', async (c) => {
  const project = await loadActiveProject(c.env, c.req.param('sid'));
  await requireOwner(c, project, OWNER_ONLY);
  const ticketId = c.req.param('ticket_id');
  const removed = await ticketStub(c.env, project.service_id, ticketId).remove();
  const listed = await deleteDirectoryEntry(c.env, project.service_id, ticketId);
  if (!removed && !listed) throw new SvcHttpError('TICKET_NOT_FOUND', 'The ticket does not exist.', { status: 404 });
  return c.json({ deleted: true, ticket_id: ticketId });
});

/** getTickets: every field for the owner, the public subset for a signed-in user. */
ticketRoutes.get('/v1/projects/:sid/tickets', async (c) => {
  const project = await loadActiveProject(c.env, c.req.param('sid'));
  const caller = await resolveCaller(c.env, project, c.req.header('authorization'));
  if (caller.kind === 'anonymous') {
    throw new SvcHttpError('UNAUTHORIZED', 'Sign in to list tickets: send an id token or the owner key.', { status: 401 });
  }
  const isOwner = caller.kind === 'owner';
  const only = c.req.query('ticket_id');
  if (only !== undefined && /[#@]/.test(only) && !isOwner) throw new SvcHttpError('INVALID_REQUEST', 'Invalid ticket id.');
  const limit = pageSize(c.req.query('limit'));
  const after = decodeStartKey(c.req.query('startKey'), (v): v is string => typeof v === 'string');
  const tickets = await listDirectory(c.env, project.service_id, after, limit + 1, only);
  const page = tickets.slice(0, limit);
  const list = await Promise.all(
    page.map(async (ticket) => {
      const { remaining } = await ticketStub(c.env, project.service_id, ticket.ticket_id).status();
      return isOwner ? ownerView(ticket, remaining) : publicView(ticket, remaining);
    }),
  );
  const endOfList = tickets.length <= limit;
  const body: DatabaseResponse<Record<string, unknown>> = {
    list,
    startKey: endOfList ? null : encodeStartKey(page[page.length - 1].ticket_id),
    endOfList,
  };
  return c.json(body);
});

function publicView(ticket: StoredTicket, remaining: number | null): Record<string, unknown> {
  const view: Record<string, unknown> = { ticket_id: ticket.ticket_id, description: ticket.description ?? '', timestamp: ticket.timestamp };
  if (remaining !== null) view.count = remaining;
  if (ticket.time_to_live !== undefined) view.time_to_live = ticket.time_to_live;
  return view;
}

function ownerView(ticket: StoredTicket, remaining: number | null): Record<string, unknown> {
  return {
    ...publicView(ticket, remaining),
    limit_per_user: ticket.limit_per_user ?? false,
    updated: ticket.updated,
    condition: ticket.condition,
    actions: ticket.actions,
    legacy: false,
    rules_version: ticket.rules_version,
  };
}
