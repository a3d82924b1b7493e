/**
 * The check-time request of a legacy ticket (spec 9.2): sent like a req action (src/outbound, its
 * Destinations, redaction and time limit), before any action runs; its rows then read the answer.
 */
import type { RequestCondition, TicketAction } from '../../schemas/ticket-types';
import type { RequestConditionAnswer } from '../engine/conditions';
import type { ActionContext } from '../engine/context';
import { renderValue } from '../engine/template';
import { ActionError } from '../wire/errors';
import { withinDeadline } from './budget';
import { reqAction } from './req';
import type { ActionResult, ActionServices } from './types';

type Failure = Extract<RequestConditionAnswer, { ok: false }>;
const FAILURE_CODES = new Set<string>(['REQUEST_FAILED', 'ACTION_FORBIDDEN', 'TIMEOUT', 'PATH_NOT_FOUND', 'PLACEHOLDER_MISSING', 'AUTH_REQUIRED']);

/** Sends the request; the answer is { status, headers, body }, or its body alone on a ticket without rules_version. */
export async function sendRequestCondition(
  request: RequestCondition,
  ctx: ActionContext,
  services: ActionServices,
  bodyAlone: boolean,
): Promise<RequestConditionAnswer> {
  const action: TicketAction = { act: 'req', exe: request.exe };
  const run = {
    action,
    exe: request.exe,
    render: (value: unknown, options?: object) => renderValue(value, { ctx }, options),
    ctx,
    services,
    path: 'condition.request',
  };
  const sending = reqAction.run(run).catch((err: unknown): ActionResult => {
    if (err instanceof ActionError) return { ok: false, failure: err.toFailure() };
    throw err;
  });
  const result = await withinDeadline(sending, services.deadline, services.now());
  if (!result.ok) {
    const { code, message, detail } = result.failure;
    const known: Failure['code'] = FAILURE_CODES.has(code) ? (code as Failure['code']) : 'REQUEST_FAILED';
    return { ok: false, code: known, message: `The check-time request failed: ${message}`, ...(detail ? { detail } : {}) };
  }
  const answer = result.answer as { body?: unknown };
  return { ok: true, answer: bodyAlone ? answer.body : answer };
}
