/**
 * Ticket registration (PUT /v1/projects/{service_id}/tickets/{ticket_id}): validates the JSON body
 * against spec 2.1-2.5 and produces the stored form (rules_version 2, current names, defaults filled).
 */
import * as z from 'zod';
import { MAX_DESCRIPTION } from './limits';
import { actionSchema, type ActionInput } from './actions/schema';
import { normalizeActions } from './actions/chain';
import { conditionInputSchema, normalizeCondition } from './condition';
import { normalizeRetrySchedule, retryScheduleInputSchema } from './retry-schedule';
import { idempotencyInputSchema, registeredIdempotency } from './idempotency';
import { checked, type Checked } from './field-issue';
import { parseOrRefuse } from './issues';
import { requireExisting, type ExistenceCheck, type RegistrationLookups } from './lookups';
import { invalidField } from './paths';
import { strictObject } from './strict';
import type { StoredTicket } from './ticket-types';

export type { RegistrationLookups } from './lookups';

export const TICKET_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface ValidatedTicket {
  ticket: Omit<StoredTicket, 'timestamp' | 'updated'>;
  /** number = set remaining to it, null = unlimited, undefined = blank (keep current on update; unlimited on create) */
  count: number | null | undefined;
}

/** Refuses an id outside the pattern of spec 2.1 (throws FieldIssueError); #, ! and / are reserved. */
export function validateTicketId(ticketId: string): void {
  if (typeof ticketId === 'string' && TICKET_ID_PATTERN.test(ticketId)) return;
  const reserved = typeof ticketId === 'string' && /[#!/]/.test(ticketId) ? 'the characters #, ! and / are reserved; ' : '';
  throw invalidField('ticket_id', `${reserved}an id is 1 to 64 letters, digits, _ or -, starting with a letter or digit`);
}

export const ticketRegistrationSchema = strictObject({
  ticket_id: z.string().optional().describe('When present, must equal the ticket id of the path.'),
  description: z.string().max(MAX_DESCRIPTION).optional(),
  count: z
    .union([z.int().min(0), z.null(), z.literal('')], {
      error: "must be a non-negative integer, null (unlimited) or '' (keep the current count)",
    })
    .optional()
    .describe("Consumptions left. null = unlimited; '' or absent = keep the current count (unlimited on a new ticket)."),
  limit_per_user: z
    .union([z.boolean(), z.int().min(0), z.null()], {
      error: 'must be true (once), a non-negative integer, or false, 0 or null (unlimited)',
    })
    .optional(),
  time_to_live: z
    .union([z.int(), z.null()], { error: 'must be a time in ms since the epoch or null (never expires)' })
    .optional()
    .describe('Absolute expiry, ms since the epoch, in the future; null or absent = never.'),
  condition: conditionInputSchema.nullable().optional(),
  actions: z.array(actionSchema).describe('At most 50 actions in total, nested ones included.'),
  idempotency: idempotencyInputSchema
    .nullable()
    .optional()
    .describe("Extension: null = none, also when a preset would set its provider's event id as the key."),
  retry_schedule: z
    .union([retryScheduleInputSchema, z.null()])
    .optional()
    .describe('Extension: null or absent = no schedule (a failure after resp ends the run).'),
  // Read-only members of a ticket as getTickets lists it: accepted so a listed ticket can be saved back, then ignored.
  timestamp: z.number().optional().describe('Read-only; ignored.'),
  updated: z.number().optional().describe('Read-only; ignored.'),
  rules_version: z.number().optional().describe('Read-only; ignored (saving applies rules_version 2).'),
  legacy: z.boolean().optional().describe('Read-only; ignored.'),
});

/** Validates a registration body: the stored form, or the first issue (INVALID_PARAMETER naming the field). */
export function validateTicketRegistration(ticketId: string, input: unknown, lookups: RegistrationLookups, now: number): Promise<Checked<ValidatedTicket>> {
  return checked(() => normalizeRegistration(ticketId, input, lookups, now));
}

export async function normalizeRegistration(ticketId: string, input: unknown, lookups: RegistrationLookups, now: number): Promise<ValidatedTicket> {
  validateTicketId(ticketId);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalidField('', 'the ticket must be a JSON object: { description?, count?, limit_per_user?, time_to_live?, condition?, actions }');
  }
  const parsed = parseOrRefuse(ticketRegistrationSchema, input);
  if (parsed.ticket_id !== undefined && parsed.ticket_id !== ticketId) {
    throw invalidField('ticket_id', `"${parsed.ticket_id}" differs from the ticket id of the path ("${ticketId}"); a ticket id cannot change`);
  }
  if (typeof parsed.time_to_live === 'number' && parsed.time_to_live <= now) {
    throw invalidField('time_to_live', 'must be in the future (ms since the epoch), or null for never');
  }

  const checks: ExistenceCheck[] = [];
  const condition = normalizeCondition(parsed.condition ?? {}, 'condition', checks);
  const idempotency = registeredIdempotency(parsed.idempotency, parsed.condition?.preset?.id, 'idempotency');
  const retrySchedule = parsed.retry_schedule ? normalizeRetrySchedule(parsed.retry_schedule, 'retry_schedule') : undefined;
  const actions = normalizeActions(parsed.actions as ActionInput[], now, checks);

  await requireExisting(checks, lookups);

  const count = parsed.count === '' ? undefined : parsed.count;
  const ticket: ValidatedTicket['ticket'] = { ticket_id: ticketId, condition, actions, rules_version: 2 };
  if (parsed.description !== undefined) ticket.description = parsed.description;
  if (count !== undefined) ticket.count = count;
  const limit = parsed.limit_per_user === true ? 1 : parsed.limit_per_user;
  if (typeof limit === 'number' && limit > 0) ticket.limit_per_user = limit;
  if (typeof parsed.time_to_live === 'number') ticket.time_to_live = parsed.time_to_live;
  if (idempotency) ticket.idempotency = idempotency;
  if (retrySchedule) ticket.retry_schedule = retrySchedule;
  return { ticket, count };
}
