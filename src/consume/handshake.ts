/**
 * How a consumption logs and returns the answer to a provider handshake that consume-ticket.ts
 * recognised and verified (docs/signatures.md "Handshakes"): no action of the ticket runs and no count
 * is spent; the answer is logged as a success with `handshake`. What answers it is src/actions/handshake.ts.
 */
import type { StoredTicket } from '../../schemas/ticket-types';
import { type HandshakeAnswer, replyToHandshake } from '../actions/handshake';
import { startRun, type RunOutcome } from '../actions/runner';
import type { ActionContext } from '../engine/context';
import type { ErrorBody } from '../wire/errors';
import { outcomeOf } from './continuation';
import type { ConsumePorts } from './consume-ticket';
import type { ConsumeOutcome } from './types';

export interface HandshakeRun {
  runActions: ConsumePorts['runActions'];
  contextOf: () => Promise<ActionContext>;
  tkid: string;
  hash: () => Promise<string>;
}

/**
 * Answers a verified handshake (docs/signatures.md "Handshakes") and logs it as a success with
 * `handshake`, or as the failure of the run that computes Zoom's answer.
 */
export async function answerHandshake(
  answer: HandshakeAnswer,
  ticket: StoredTicket,
  run: HandshakeRun,
  log: (rows: RunOutcome['rows'], description: Record<string, unknown>, failed: boolean, code: string | null) => void,
): Promise<ConsumeOutcome> {
  const kind = ticket.condition.handshake;
  const reply = await replyToHandshake(answer, ticket.condition, async (actions) =>
    run.runActions(startRun(actions, await run.contextOf(), { tkid: run.tkid, hash: await run.hash() })),
  );
  if (reply.ok) {
    log(reply.rows, { outcome: { ok: true }, handshake: kind }, false, null);
    return reply.text ? { ok: true, status: 200, body: reply.body, text: true } : { ok: true, status: 200, body: reply.body };
  }
  const { error } = reply;
  log(reply.rows, { outcome: outcomeOf(error), handshake: kind }, true, error.code);
  const body: ErrorBody = {
    code: error.code,
    message: error.message,
    stage: error.stage ?? 'action',
    ...(error.detail ? { detail: error.detail } : {}),
    ticket_id: ticket.ticket_id,
  };
  return { ok: false, status: ticket.condition.return200 === true ? 200 : 400, error: body };
}
