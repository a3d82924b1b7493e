import { currentFormOf } from '../../schemas/legacy/current-form';
import type { StoredIdempotency } from '../../schemas/idempotency';
import type { StoredRetrySchedule } from '../../schemas/retry-schedule';
import type { StoredTicket } from '../../schemas/ticket-types';
import type { ConsumeOutcome } from '../consume/types';
import { ticketNotFound } from './ticket-params';

/** What a signed-in user sees of a ticket in getTickets. */
export function publicView(ticket: StoredTicket, remaining: number | null): Record<string, unknown> {
  const view: Record<string, unknown> = { ticket_id: ticket.ticket_id, description: ticket.description ?? '', timestamp: ticket.timestamp };
  if (remaining !== null) view.count = remaining;
  if (ticket.time_to_live !== undefined) view.time_to_live = ticket.time_to_live;
  return view;
}

/** What the owner sees: every field, a legacy ticket in the current format. */
export function ownerView(ticket: StoredTicket, remaining: number | null): Record<string, unknown> {
  const { condition, actions } = currentFormOf(ticket.condition, ticket.actions);
  return {
    ...publicView(ticket, remaining),
    limit_per_user: ticket.limit_per_user ?? false,
    updated: ticket.updated,
    condition,
    actions,
    legacy: ticket.legacy === true,
    ...(ticket.rules_version !== undefined ? { rules_version: ticket.rules_version } : {}),
    ...(ticket.idempotency ? { idempotency: ticket.idempotency } : {}),
    ...(ticket.retry_schedule ? { retry_schedule: ticket.retry_schedule } : {}),
  };
}

/**
 * A ticket's definition as registered, every default filled in, so two of them compare field by field
 * (the plan of `svc tickets apply`). `count` is the count given at registration, not what is left.
 */
export interface TicketDefinition {
  description: string;
  count: number | null;
  limit_per_user: number | false;
  time_to_live: number | null;
  rules: 'current' | 'legacy';
  condition: unknown;
  actions: unknown;
  /** Extension: idempotent consumption; null = off. */
  idempotency: StoredIdempotency | null;
  /** Extension: the retry schedule of the run after resp; null = none. */
  retry_schedule: StoredRetrySchedule | null;
}

export function definitionOf(ticket: Omit<StoredTicket, 'timestamp' | 'updated'>, count: number | null | undefined): TicketDefinition {
  const { condition, actions } = currentFormOf(ticket.condition, ticket.actions);
  return {
    description: ticket.description ?? '',
    count: count ?? null,
    limit_per_user: ticket.limit_per_user ?? false,
    time_to_live: ticket.time_to_live ?? null,
    rules: ticket.legacy === true ? 'legacy' : 'current',
    condition,
    actions,
    idempotency: ticket.idempotency ?? null,
    retry_schedule: ticket.retry_schedule ?? null,
  };
}

/** A dry run's verdict as data (status 200 either way); a missing ticket is the route's 404. */
export function checkVerdict(ticketId: string, outcome: ConsumeOutcome, extra: Record<string, unknown> = {}): Record<string, unknown> {
  if (outcome.ok) return { ticket_id: ticketId, ...extra, passed: true, message: outcome.body };
  if (outcome.error.code === 'TICKET_NOT_FOUND') throw ticketNotFound();
  const { ticket_id: _, ...error } = outcome.error;
  return { ticket_id: ticketId, ...extra, passed: false, status: outcome.status, error };
}
