import type { RequestCondition, SignatureConfig, StoredTicket } from '../../schemas/ticket-types';
import { evaluateCondition, type RequestConditionAnswer } from '../engine/conditions';
import type { ActionContext } from '../engine/context';
import { startRun, type RunOutcome, type RunState } from '../actions/runner';
import { handshakeAnswer, replyToHandshake, type HandshakeAnswer } from '../actions/handshake';
import { type ErrorBody, internalErrorBody, SvcHttpError } from '../wire/errors';
import type { RequestSnapshot } from '../engine/snapshot';
import { parseBody, parseQuery } from './read-request';
import type { ProjectUser } from '../platform/types';
import { outcomeOf, type ContinuationJob } from './continuation';
import { Consumption, failure, type Reading } from './consumption';
import { answerKept, idempotencyKeyOf, KEY_LEASE_MS, keptKey, settleKey } from './idempotent';
import type { ConsumeStore, Reservation } from './store';
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
    return { ok: false, status: 500, error: internalErrorBody('ticket'), legacy: true };
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

/** A ticket judged and run for a request it can read, in the order of spec 1.2. */
async function consumeRead(
  store: ConsumeStore,
  ticket: StoredTicket,
  input: ConsumeInput,
  request: RequestSnapshot,
  ports: ConsumePorts,
): Promise<ConsumeOutcome> {
  const consumption = new Consumption(store, ticket, input, request, ports);
  const key = idempotencyKeyOf(ticket, input, request);
  const refused = consumption.refusal(consumption.now);
  // A duplicate of a success is answered even when that success took the last unit of the count.
  if (refused && keptKey(store, key, consumption.now)?.state !== 'succeeded') return consumption.fail('ticket', refused.code, refused.message);

  const handshake = !consumption.check && ticket.condition.handshake ? handshakeAnswer(ticket.condition.handshake, request, input.search) : undefined;
  if (handshake) return answerVerifiedHandshake(consumption, handshake, ports);
  if (key && !key.ok) return consumption.fail('ticket', key.code, key.message, key.detail);

  const condition = await evaluateCondition(ticket.condition, request, consumption.conditionPorts(), consumption.rules);
  if (!condition.ok) return consumption.fail('condition', condition.code, condition.message, condition.detail);
  // A legacy ticket applies its placeholder map on the long-form routes only (spec 4.1).
  if (ticket.legacy && !input.longForm) condition.placeholders = {};

  if (consumption.check) {
    consumption.log(false, null, { outcome: { ok: true }, placeholders: condition.placeholders });
    return { ok: true, status: 200, body: CHECK_PASSED };
  }

  // Nothing awaited between the key's look-up, this re-check and the reservation: the object runs them atomically.
  const now = ports.now();
  const kept = keptKey(store, key, now);
  if (kept) return answerKept(consumption, kept, now);
  const lateRefusal = consumption.refusal(now);
  if (lateRefusal) return consumption.fail('ticket', lateRefusal.code, lateRefusal.message);
  if (key?.ok) store.idempotency.claim(key.key, consumption.consumeId, now + KEY_LEASE_MS);
  const reservation = store.reserve(request.user?.user_id);
  const hash = await consumption.hash();
  const outcome = await runChain(consumption, { body: condition.body, params: condition.params, placeholders: condition.placeholders }, hash, ports);
  const answer = settle(consumption, store, { placeholders: condition.placeholders, reservation, hash }, outcome);
  settleKey(store, key, consumption.consumeId, { failed: outcome.error !== undefined && !outcome.continuation, outcome: answer }, ports.now());
  return answer;
}

/** The provider's handshake: its signature first (method and signature only), then the answer; no action runs, no count is spent. */
async function answerVerifiedHandshake(consumption: Consumption, handshake: HandshakeAnswer, ports: ConsumePorts): Promise<ConsumeOutcome> {
  const { ticket, request } = consumption;
  const { method, signature } = ticket.condition;
  const verified = await evaluateCondition(
    { ...(method ? { method } : {}), ...(signature ? { signature } : {}) },
    request,
    consumption.conditionPorts(),
    consumption.rules,
  );
  if (!verified.ok) return consumption.fail('condition', verified.code, verified.message, verified.detail);
  const kind = ticket.condition.handshake;
  const reply = await replyToHandshake(handshake, ticket.condition, async (actions) => {
    const hash = await consumption.hash();
    const context = await consumption.context({ body: request.body, params: request.params, placeholders: {} }, hash);
    return ports.runActions(startRun(actions, context, { tkid: consumption.tkid, hash }));
  });
  // Logged as a success with `handshake`, or as the failure of the run that computes Zoom's answer.
  if (reply.ok) {
    consumption.log(false, null, { outcome: { ok: true }, handshake: kind }, reply.rows);
    return reply.text ? { ok: true, status: 200, body: reply.body, text: true } : { ok: true, status: 200, body: reply.body };
  }
  const { error } = reply;
  consumption.log(true, error.code, { outcome: outcomeOf(error), handshake: kind }, reply.rows);
  const body: ErrorBody = {
    code: error.code,
    message: error.message,
    stage: error.stage ?? 'action',
    ...(error.detail ? { detail: error.detail } : {}),
    ticket_id: ticket.ticket_id,
  };
  return { ok: false, status: ticket.condition.return200 === true ? 200 : 400, error: body };
}

/** Runs the ticket's action chain; a chain that crashed is an internal error of the action stage. */
async function runChain(consumption: Consumption, reading: Reading, hash: string, ports: ConsumePorts): Promise<RunOutcome> {
  const { ticket } = consumption;
  const resume = consumption.input.replay?.resume;
  // A partial replay (extension) goes on from the failed action of the run it replays, with no row yet.
  const run = resume
    ? { ...structuredClone(resume), rows: [] }
    : startRun(
        ticket.actions,
        consumption.context(reading, hash),
        { tkid: consumption.tkid, hash },
        {
          ...(ticket.legacy ? { legacy: true } : {}),
          ...(consumption.bodyAlone ? { bodyAlone: true } : {}),
        },
      );
  try {
    return await ports.runActions(run);
  } catch (err) {
    console.error('action chain crashed', err instanceof Error ? err.message : String(err));
    return { rows: [], error: internalErrorBody('action') };
  }
}

/**
 * Logs the run and answers: a run that goes on after resp is stored for the object's alarm; a failed
 * run gives the count and the user's unit back (what the actions did is not rolled back).
 */
function settle(
  consumption: Consumption,
  store: ConsumeStore,
  { placeholders, reservation, hash }: { placeholders: Record<string, unknown>; reservation: Reservation; hash: string },
  outcome: RunOutcome,
): ConsumeOutcome {
  const { input, tkid } = consumption;
  const { respond, continuation, error } = outcome;
  const answered = respond ? { responded: { status: respond.status } } : {};

  if (continuation) {
    // The caller is answered now; the rest of the run is stored and run by the object's alarm.
    const description = { outcome: { ok: true }, tkid, placeholders, ...answered, continuation: { resume_at: continuation.resumeAt } };
    const row = consumption.logRow(false, null, description);
    store.enqueueLog(row, outcome.rows);
    const job: ContinuationJob = {
      state: { ...continuation.state, rows: [] },
      log: row,
      project: { service_id: input.project.service_id, owner_id: input.project.owner_id, plan: input.project.plan },
      reservation,
      ...(consumption.ticket.retry_schedule ? { schedule: consumption.ticket.retry_schedule } : {}),
    };
    store.scheduleContinuation(continuation.resumeAt, JSON.stringify(job));
    return { ok: true, status: respond?.status ?? 200, body: respond?.body ?? { tkid, hash } };
  }

  if (error) {
    store.release(reservation);
    consumption.log(true, error.code, { outcome: outcomeOf(error), tkid, placeholders, ...answered }, outcome.rows);
    // A resp that already answered (e.g. in the err chain) is what the caller gets.
    if (respond) return { ok: true, status: respond.status, body: respond.body };
    const { code, message, stage, detail, action } = error;
    return failure(input.ticket_id, stage ?? 'action', code, message, consumption.ticket.condition.return200 === true, detail, action ? { action } : {});
  }

  consumption.log(false, null, { outcome: { ok: true }, tkid, placeholders, ...answered }, outcome.rows);
  if (respond) return { ok: true, status: respond.status, body: respond.body };
  return { ok: true, status: 200, body: { tkid, hash } };
}

/**
 * The request with its body and query parsed (spec 4.1; a legacy ticket keeps query values as
 * strings): a refused request answers before the ticket is judged, unlogged.
 */
function readRequest(
  input: Pick<ConsumeInput, 'request' | 'rawBody' | 'search'>,
  legacy: boolean,
): { ok: true; snapshot: RequestSnapshot } | { ok: false; refused: ConsumeOutcome } {
  try {
    const body = input.request.method === 'POST' ? parseBody(input.rawBody) : {};
    return { ok: true, snapshot: { ...input.request, params: parseQuery(input.search, !legacy), body } };
  } catch (err) {
    if (!(err instanceof SvcHttpError)) throw err;
    return { ok: false, refused: { ok: false, status: err.status, error: err.toBody() } };
  }
}
