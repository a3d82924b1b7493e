import type { RequestCondition, SignatureConfig, StoredTicket } from '../../schemas/ticket-types';
import { TOKEN_ALGORITHM } from '../../schemas/signature';
import { evaluateCondition, type ConditionPorts, type RequestConditionAnswer } from '../engine/conditions';
import type { ActionContext } from '../engine/context';
import { startRun, type RunOutcome, type RunState } from '../actions/runner';
import { handshakeAnswer } from '../engine/handshake';
import { answerHandshake } from './handshake';
import { SvcHttpError, type ErrorBody, type ErrorCode, type Stage } from '../http/errors';
import type { RequestSnapshot } from '../engine/snapshot';
import { parseBody, parseQuery } from './read-request';
import type { ProjectUser } from '../platform/types';
import { outcomeOf, type ContinuationJob } from './continuation';
import { checkTicket } from './ticket-checks';
import { consumerName, newConsumeId, receiptHash, tkidOf } from './receipt';
import type { ConsumeStore } from './store';
import { keepRequest, type KeptRequest } from '../ticket-log/kept-request';
import type { LogRow } from '../ticket-log/log-row';
import type { ConsumeInput, ConsumeOutcome } from './types';

const CHECK_PASSED = 'SUCCESS: Ticket check passed. No action taken.';

export interface ConsumePorts {
  verifySignature(config: SignatureConfig): Promise<boolean>;
  hasRecordAccess(recordId: string, user: ProjectUser): Promise<boolean>;
  /** Legacy tickets: sends the check-time request with this consumption's references (src/actions/request-condition.ts). */
  sendRequestCondition?(request: RequestCondition, ctx: ActionContext, bodyAlone: boolean): Promise<RequestConditionAnswer>;
  /** Runs the actions from `state` (see src/actions/runner.ts). */
  runActions(state: RunState): Promise<RunOutcome>;
  now(): number;
}

/**
 * One consumption (or dry run) of the ticket held by `store`, in the order of spec 1.2. The count
 * and the user's limit are checked first, then re-checked and reserved synchronously after the
 * (asynchronous) condition, so concurrent consumptions never overspend; a failed run gives them back.
 */
export async function consumeTicket(store: ConsumeStore, input: ConsumeInput, ports: ConsumePorts): Promise<ConsumeOutcome> {
  const ticket = store.ticket();
  if (!ticket) return missingTicket(input);
  const read = readRequest(input, ticket.legacy === true);
  if (!read.ok) return read.refused;
  if (!ticket.legacy) return consumeRead(store, ticket, input, read.snapshot, ports);
  try {
    return asLegacy(await consumeRead(store, ticket, input, read.snapshot, ports));
  } catch (err) {
    console.error('legacy consumption crashed', err instanceof Error ? err.message : String(err));
    return { ok: false, status: 500, error: { code: 'INTERNAL_ERROR', message: 'Internal server error', stage: 'ticket' }, legacy: true };
  }
}

/** The answer for a ticket that does not exist (the route answers it without the object when it knows): a refused request first. */
export function missingTicket(input: Pick<ConsumeInput, 'ticket_id' | 'request' | 'rawBody' | 'search'>): ConsumeOutcome {
  const read = readRequest(input, false);
  if (!read.ok) return read.refused;
  return failure(input.ticket_id, 'ticket', 'TICKET_NOT_FOUND', 'The ticket does not exist.', false);
}

/** A legacy ticket's failure is answered as plain text (spec 7); an action that crashed is a 500. */
function asLegacy(outcome: ConsumeOutcome): ConsumeOutcome {
  if (outcome.ok) return outcome;
  const status = outcome.error.code === 'INTERNAL_ERROR' ? 500 : outcome.status;
  return { ...outcome, status, legacy: true };
}

async function consumeRead(
  store: ConsumeStore,
  ticket: StoredTicket,
  input: ConsumeInput,
  request: RequestSnapshot,
  ports: ConsumePorts,
): Promise<ConsumeOutcome> {
  const ticketId = input.ticket_id;

  const now = ports.now();
  const check = input.mode === 'check';
  const consumeId = newConsumeId(now);
  const user = request.user;
  const consumer = consumerName(user?.user_id, request.ip, request.user_agent);
  const return200 = ticket.condition.return200 === true;
  let kept: KeptRequest | undefined;
  // A token signature's header holds the shared secret itself: the log never keeps it.
  const tokenHeader = ticket.condition.signature?.algorithm === TOKEN_ALGORITHM ? ticket.condition.signature.header : undefined;
  const logRow = (failed: boolean, code: string | null, description: Record<string, unknown>): LogRow => ({
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
    ...(check ? {} : { request: (kept ??= keepRequest(input, input.replay?.received_at ?? now, tokenHeader)) }),
    ...(input.replay ? { replay_of: input.replay.of } : {}),
  });
  const log = (failed: boolean, code: string | null, description: Record<string, unknown>) => store.enqueueLog(logRow(failed, code, description), []);
  const fail = (stage: Stage, code: ErrorCode, message: string, detail?: Record<string, unknown>) => {
    log(true, code, { outcome: outcomeOf({ code, message, stage, ...(detail ? { detail } : {}) }) });
    return failure(ticketId, stage, code, message, return200, detail);
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

  const rules = ticket.legacy ? 'legacy' : 'current';
  const tkid = tkidOf(ticketId, consumeId, consumer);
  // Made once, when first needed: by the actions, or earlier by a legacy ticket's check-time request.
  let hashing: Promise<string> | undefined;
  const hashOnce = () => (hashing ??= receiptHash(input.project.receipt_key, tkid));
  const bodyAlone = ticket.rules_version === undefined;
  const contextOf = (reading: Pick<ActionContext, 'body' | 'params' | 'placeholders'>, hash: string): ActionContext => ({
    ...reading,
    headers: request.headers,
    ip: request.ip,
    user_agent: request.user_agent,
    method: request.method,
    user: user ? { ...user.attributes, user_id: user.user_id, email: user.email, access_group: user.access_group } : undefined,
    record_access: ticket.condition.record_access,
    ticket: { id: ticketId, service: input.project.service_id, owner: input.project.owner_id, consume_id: consumeId, timestamp: now, hash },
  });
  const conditionPorts: ConditionPorts = {
    verifySignature: (config) => ports.verifySignature(config),
    hasRecordAccess: (recordId, who) => ports.hasRecordAccess(recordId, who),
    sendRequestCondition: async (checkTime, reading) => {
      if (!ports.sendRequestCondition) throw new Error('no port sends the check-time request of a legacy ticket');
      return ports.sendRequestCondition(checkTime, contextOf(reading, await hashOnce()), bodyAlone);
    },
  };
  const handshake = !check && ticket.condition.handshake ? handshakeAnswer(ticket.condition.handshake, request, input.search) : undefined;
  if (handshake) {
    // The provider's handshake: its signature first (method and signature only), then the answer; no action runs, no count is spent.
    const { method, signature } = ticket.condition;
    const verified = await evaluateCondition({ ...(method ? { method } : {}), ...(signature ? { signature } : {}) }, request, conditionPorts, rules);
    if (!verified.ok) return fail('condition', verified.code, verified.message, verified.detail);
    return answerHandshake(handshake, ticket, { runActions: ports.runActions, contextOf: async () => contextOf({ body: request.body, params: request.params, placeholders: {} }, await hashOnce()), tkid, hash: hashOnce }, (rows, description, failed, code) => store.enqueueLog(logRow(failed, code, description), rows));
  }

  const condition = await evaluateCondition(ticket.condition, request, conditionPorts, rules);
  if (!condition.ok) return fail('condition', condition.code, condition.message, condition.detail);
  // A legacy ticket applies its placeholder map on the long-form routes only (spec 4.1).
  if (ticket.legacy && !input.longForm) condition.placeholders = {};

  if (check) {
    log(false, null, { outcome: { ok: true }, placeholders: condition.placeholders });
    return { ok: true, status: 200, body: CHECK_PASSED };
  }

  // Nothing awaited between this re-check and the reservation: the object runs it atomically.
  const lateRefusal = checkTicket(state(), ports.now());
  if (lateRefusal) return fail('ticket', lateRefusal.code, lateRefusal.message);
  const reservation = store.reserve(user?.user_id);

  const hash = await hashOnce();
  const run = startRun(
    ticket.actions,
    contextOf({ body: condition.body, params: condition.params, placeholders: condition.placeholders }, hash),
    { tkid, hash },
    { ...(ticket.legacy ? { legacy: true } : {}), ...(bodyAlone ? { bodyAlone: true } : {}) },
  );
  let outcome: RunOutcome;
  try {
    outcome = await ports.runActions(run);
  } catch (err) {
    console.error('action chain crashed', err instanceof Error ? err.message : String(err));
    outcome = { rows: [], error: { code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'action' } };
  }
  const { respond, continuation, error } = outcome;
  const answered = respond ? { responded: { status: respond.status } } : {};

  if (continuation) {
    // The caller is answered now; the rest of the run is stored and run by the object's alarm.
    const description = { outcome: { ok: true }, tkid, placeholders: condition.placeholders, ...answered, continuation: { resume_at: continuation.resumeAt } };
    const row = logRow(false, null, description);
    store.enqueueLog(row, outcome.rows);
    const job: ContinuationJob = {
      state: { ...continuation.state, rows: [] },
      log: row,
      project: { service_id: input.project.service_id, owner_id: input.project.owner_id, plan: input.project.plan },
      reservation,
    };
    store.scheduleContinuation(continuation.resumeAt, JSON.stringify(job));
    return { ok: true, status: respond?.status ?? 200, body: respond?.body ?? { tkid, hash } };
  }

  if (error) {
    // No rollback of what the actions did; the count and the user's unit are given back.
    store.release(reservation);
    const logged = logRow(true, error.code, { outcome: outcomeOf(error), tkid, placeholders: condition.placeholders, ...answered });
    store.enqueueLog(logged, outcome.rows);
    // A resp that already answered (e.g. in the err chain) is what the caller gets.
    if (respond) return { ok: true, status: respond.status, body: respond.body };
    const { code, message, stage, detail, action } = error;
    return failure(ticketId, stage ?? 'action', code, message, return200, detail, action ? { action } : {});
  }

  store.enqueueLog(logRow(false, null, { outcome: { ok: true }, tkid, placeholders: condition.placeholders, ...answered }), outcome.rows);
  if (respond) return { ok: true, status: respond.status, body: respond.body };
  return { ok: true, status: 200, body: { tkid, hash } };
}

/**
 * The request with its body and query parsed (spec 4.1; a legacy ticket keeps query values as
 * strings): a refused request answers before the ticket is judged, unlogged.
 */
function readRequest(input: Pick<ConsumeInput, 'request' | 'rawBody' | 'search'>, legacy: boolean): { ok: true; snapshot: RequestSnapshot } | { ok: false; refused: ConsumeOutcome } {
  try {
    const body = input.request.method === 'POST' ? parseBody(input.rawBody) : {};
    return { ok: true, snapshot: { ...input.request, params: parseQuery(input.search, !legacy), body } };
  } catch (err) {
    if (!(err instanceof SvcHttpError)) throw err;
    return { ok: false, refused: { ok: false, status: err.status, error: err.toBody() } };
  }
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
