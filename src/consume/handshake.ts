/**
 * Answering a provider handshake that consume-ticket.ts recognised and verified (docs/signatures.md
 * "Handshakes"): no action of the ticket runs and no count is spent; the answer is logged as a success
 * with `handshake`.
 */
import type { StoredTicket } from '../../schemas/ticket-types';
import { zoomHandshakeActions } from '../actions/handshake';
import { startRun, type RunOutcome } from '../actions/runner';
import type { ActionContext } from '../engine/context';
import type { HandshakeAnswer } from '../engine/handshake';
import type { ErrorBody } from '../wire/errors';
import { outcomeOf } from './continuation';
import type { ConsumePorts } from './consume-ticket';
import type { ConsumeOutcome } from './types';
import { internalErrorBody } from '../wire/errors';

export interface HandshakeRun {
  runActions: ConsumePorts['runActions'];
  contextOf: () => Promise<ActionContext>;
  tkid: string;
  hash: () => Promise<string>;
}

/**
 * Answers a verified handshake (docs/signatures.md "Handshakes") and logs it as a success with
 * `handshake`. Zoom's answer needs the Secret Key, so it runs the internal hsk action and a resp.
 */
export async function answerHandshake(
  answer: HandshakeAnswer,
  ticket: StoredTicket,
  run: HandshakeRun,
  log: (rows: RunOutcome['rows'], description: Record<string, unknown>, failed: boolean, code: string | null) => void,
): Promise<ConsumeOutcome> {
  const kind = ticket.condition.handshake;
  if (answer.kind !== 'zoom') {
    log([], { outcome: { ok: true }, handshake: kind }, false, null);
    return answer.kind === 'text' ? { ok: true, status: 200, body: answer.body, text: true } : { ok: true, status: 200, body: answer.body };
  }
  const secretName = ticket.condition.signature!.secretName;
  let outcome: RunOutcome;
  try {
    outcome = await run.runActions(
      startRun(zoomHandshakeActions(secretName, answer.plainToken), await run.contextOf(), { tkid: run.tkid, hash: await run.hash() }),
    );
  } catch (err) {
    console.error('handshake crashed', err instanceof Error ? err.message : String(err));
    outcome = { rows: [], error: internalErrorBody('action') };
  }
  if (outcome.respond && !outcome.error) {
    log(outcome.rows, { outcome: { ok: true }, handshake: kind }, false, null);
    return { ok: true, status: 200, body: outcome.respond.body };
  }
  const error = outcome.error ?? { code: 'INTERNAL_ERROR' as const, message: 'The handshake was not answered.', stage: 'action' as const };
  log(outcome.rows, { outcome: outcomeOf(error), handshake: kind }, true, error.code);
  const body: ErrorBody = {
    code: error.code,
    message: error.message,
    stage: error.stage ?? 'action',
    ...(error.detail ? { detail: error.detail } : {}),
    ticket_id: ticket.ticket_id,
  };
  return { ok: false, status: ticket.condition.return200 === true ? 200 : 400, error: body };
}
