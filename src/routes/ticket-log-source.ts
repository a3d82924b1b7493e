import type { LogScope } from '../ticket-log/ticket-log';
import type { Env } from '../env';
import type { ConsumedRowsOf, TicketLogSource } from '../ticket-log/log-queries';
import type { Project } from '../platform/types';
import { ticketStub } from '../platform/object-stubs';

/** Which ticket's log, under which plan (its object keeps the log: src/ticket-log/ticket-log.ts). */
export const logScope = (project: Pick<Project, 'service_id' | 'plan'>, ticketId: string): LogScope => ({
  service_id: project.service_id,
  ticket_id: ticketId,
  plan: project.plan,
});

/** A ticket's log as the listings read it, from the ticket's object. */
export function ticketLogSource(env: Env, project: Project, ticketId: string): TicketLogSource {
  const stub = ticketStub(env, project.service_id, ticketId);
  const scope = logScope(project, ticketId);
  return { page: (query) => stub.logPage(scope, query), actions: (consumeId) => stub.logActions(scope, consumeId) };
}

/** getConsumedTickets reads each ticket's rows from that ticket's object. */
export const consumedRowsOf =
  (env: Env, project: Project): ConsumedRowsOf =>
  (ticketId, logKeys) =>
    ticketStub(env, project.service_id, ticketId).consumedRows(logScope(project, ticketId), logKeys);
