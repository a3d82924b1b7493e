/**
 * Legacy import (PUT /v1/projects/{service_id}/tickets/{ticket_id}/legacy): a ticket definition saved
 * under the previous rules, validated as a registration after the renames of spec 9.3 (data rows and
 * ${data} stored as body, signature.secret as secretName, a req's answer check as a cond action) and
 * stored with legacy: true, so it runs by the previous rules (spec 9.2) until registered again. Its
 * check-time request condition is kept; rules_version is kept as given (absent = answers the body alone).
 */
import * as z from 'zod';
import { conditionInputSchema } from '../condition';
import { checked, type Checked } from '../field-issue';
import { requireExisting, type ExistenceCheck, type RegistrationLookups } from '../lookups';
import { invalidField } from '../paths';
import { normalizeRegistration, ticketRegistrationSchema, validateTicketId, type ValidatedTicket } from '../ticket';
import { convertReqChecks, isRecord } from './req-checks';
import { normalizeRequestCondition, requestConditionSchema } from './request-condition';

/** The import body as documented (OpenAPI): a registration plus what only the previous rules had. */
export const legacyImportSchema = ticketRegistrationSchema.extend({
  condition: conditionInputSchema
    .extend({ request: requestConditionSchema.optional().describe('The check-time request condition: sent before the actions; its rows judge the answer.') })
    .nullable()
    .optional(),
  actions: z
    .array(z.unknown())
    .describe('As in a registration; a req action may carry condition (or match) rows on its answer, moved into a cond action at the head of its Then chain.'),
  rules_version: z.literal(2).nullable().optional().describe('2, or absent for a ticket saved before 2026-10-09 (its req actions answer the body alone).'),
});

export function validateLegacyImport(ticketId: string, input: unknown, lookups: RegistrationLookups, now: number): Promise<Checked<ValidatedTicket>> {
  return checked(() => normalizeImport(ticketId, input, lookups, now));
}

async function normalizeImport(ticketId: string, input: unknown, lookups: RegistrationLookups, now: number): Promise<ValidatedTicket> {
  validateTicketId(ticketId);
  if (!isRecord(input)) {
    throw invalidField('', 'the ticket must be a JSON object: { description?, count?, limit_per_user?, time_to_live?, condition?, actions, rules_version? }');
  }
  const { rules_version: rulesVersion, legacy: _legacy, ...definition } = input;
  if (rulesVersion !== undefined && rulesVersion !== null && rulesVersion !== 2) {
    throw invalidField('rules_version', 'must be 2, or absent for a ticket saved before 2026-10-09 (its req actions answer the body alone)');
  }
  let request: unknown;
  if (isRecord(definition.condition) && 'request' in definition.condition) {
    const { request: given, ...rest } = definition.condition;
    request = given;
    definition.condition = rest;
  }
  definition.actions = convertReqChecks(definition.actions, 'actions');

  const validated = await normalizeRegistration(ticketId, definition, lookups, now);
  const ticket: ValidatedTicket['ticket'] = { ...validated.ticket, legacy: true };
  if (rulesVersion !== 2) delete ticket.rules_version;
  if (request !== undefined && request !== null) {
    const checks: ExistenceCheck[] = [];
    ticket.condition = { ...ticket.condition, request: normalizeRequestCondition(request, 'condition.request', now, checks) };
    await requireExisting(checks, lookups);
  }
  return { ...validated, ticket };
}
