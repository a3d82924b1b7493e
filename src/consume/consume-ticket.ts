import type { SignatureConfig, TicketAction } from '../../schemas/ticket-types';
import type { TicketStore } from '../../durable-objects/ticket-store';
import { evaluateCondition } from '../engine/conditions';
import type { ActionContext, ChainOutcome } from '../actions/runner';
import type { ErrorBody, ErrorCode, Stage } from '../http/errors';
import type { ProjectUser } from '../platform/types';
import { checkTicket } from './ticket-checks';
import { consumerName, newConsumeId, receiptHash, tkidOf } from './receipt';
import type { ActionRow, ConsumeInput, ConsumeOutcome, LogRow } from './types';

export const CHECK_PASSED = 'SUCCESS: Ticket check passed. No action taken.';

export interface ConsumePorts {
  verifySignature(config: SignatureConfig): Promise<boolean>;
  hasRecordAccess(recordId: string, user: ProjectUser): Promise<boolean>;
  runActions(actions: TicketAction[], ctx: ActionContext): Promise<ChainOutcome>;
  now(): number;
}

/**
 * One consumption (or dry run) of the ticket held by `store`, in the order of spec 1.2. The count
 * and the user's limit are checked first, then re-checked and reserved synchronously after the
 * (asynchronous) condition, so concurrent consumptions never overspend; a failed run gives them back.
 */
export async function consumeTicket(store: TicketStore, input: ConsumeInput, ports: ConsumePorts): Promise<ConsumeOutcome> {
  const ticketId = input.ticket_id;
  const ticket = store.ticket();
  if (!ticket) return failure(ticketId, 'ticket', 'TICKET_NOT_FOUND', 'The ticket does not exist.', false);

  const now = ports.now();
  const check = input.mode === 'check';
  const consumeId = newConsumeId(now);
  const { request } = input;
  const user = request.user;
  const consumer = consumerName(user?.user_id, request.ip, request.user_agent);
  const return200 = ticket.condition.return200 === true;
  const log = (failed: boolean, code: string | null, description: Record<string, unknown>, actionRows: ActionRow[] = []) => {
    const row: LogRow = {
      service_id: input.project.service_id,
      ticket_id: ticketId,
      log_key: check ? `${consumeId}:CHK` : consumeId,
      consume_id: consumeId,
      user_id: consumer,
      signed: input.signedRoute && user !== undefined,
      is_check: check,
      failed,
      code,
      timestamp: now,
      description: check ? { ...description, check: true } : description,
    };
    store.enqueueLog(row, actionRows);
  };
  const fail = (stage: Stage, code: ErrorCode, message: string, detail?: Record<string, unknown>, extra?: Partial<ErrorBody>, rows?: ActionRow[]) => {
    log(true, code, { outcome: { ok: false, code, message, stage, ...(detail ? { detail } : {}) } }, rows);
    return failure(ticketId, stage, code, message, return200, detail, extra);
  };

  const state = () => ({
    ticket,
    remaining: store.remaining(),
    userUsed: user ? store.userUsed(user.user_id) : undefined,
    issuer: input.issuer,
    authError: input.authError,
  });
  const refused = checkTicket(state(), now);
  if (refused) return fail('ticket', refused.code, refused.message);

  const condition = await evaluateCondition(ticket.condition, request, ports);
  if (!condition.ok) return fail('condition', condition.code, condition.message, condition.detail);

  if (check) {
    log(false, null, { outcome: { ok: true }, placeholders: condition.placeholders });
    return { ok: true, status: 200, body: CHECK_PASSED };
  }

  // Nothing awaited between this re-check and the reservation: the object runs it atomically.
  const lateRefusal = checkTicket(state(), ports.now());
  if (lateRefusal) return fail('ticket', lateRefusal.code, lateRefusal.message);
  store.adjustRemaining(-1);
  if (user) store.adjustUserUsage(user.user_id, 1);

  const tkid = tkidOf(ticketId, consumeId, consumer);
  const hash = await receiptHash(input.project.receipt_key, tkid);
  let outcome: ChainOutcome;
  try {
    outcome = await ports.runActions(ticket.actions, {
      body: condition.body,
      params: condition.params,
      headers: request.headers,
      placeholders: condition.placeholders,
      ip: request.ip,
      user_agent: request.user_agent,
      method: request.method,
      user: user ? { ...user.attributes, user_id: user.user_id, email: user.email, access_group: user.access_group } : undefined,
      record_access: ticket.condition.record_access,
      ticket: { id: ticketId, service: input.project.service_id, owner: input.project.owner_id, consume_id: consumeId, timestamp: now, hash },
    });
  } catch (err) {
    console.error('action chain crashed', err instanceof Error ? err.message : String(err));
    outcome = { ok: false, rows: [], error: { code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'action' } };
  }
  if (!outcome.ok) {
    store.adjustRemaining(1);
    if (user) store.adjustUserUsage(user.user_id, -1);
    const { code, message, stage, detail, action } = outcome.error;
    return fail(stage ?? 'action', code, message, detail, action ? { action } : {}, outcome.rows);
  }
  log(false, null, { outcome: { ok: true }, tkid, placeholders: condition.placeholders }, outcome.rows);
  if (outcome.respond) return { ok: true, status: outcome.respond.status, body: outcome.respond.body };
  return { ok: true, status: 200, body: { tkid, hash } };
}

function failure(
  ticketId: string,
  stage: Stage,
  code: ErrorCode,
  message: string,
  return200: boolean,
  detail?: Record<string, unknown>,
  extra: Partial<ErrorBody> = {},
): ConsumeOutcome {
  const error: ErrorBody = { code, message, stage, ...extra, ...(detail ? { detail } : {}), ticket_id: ticketId };
  return { ok: false, status: return200 ? 200 : 400, error };
}
