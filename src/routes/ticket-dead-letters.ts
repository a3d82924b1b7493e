import { z } from 'zod';
import { createRouter } from '../app';
import { PROJECT_PATH, guard } from '../http/guards';
import { DEAD_LETTER_REASONS, ticketDeadLetterQuerySchema } from '../../schemas/dead-letters';
import { checked } from '../../schemas/field-issue';
import { parseOrRefuse } from '../../schemas/issues';
import { replayOfEntry } from '../consume/replay-input';
import type { ConsumeOutcome } from '../consume/types';
import { ticketStub } from '../platform/object-stubs';
import { SvcHttpError, fieldRefusal } from '../wire/errors';
import { pageOf, pageRequest } from '../wire/paging';
import type { TicketDeadLetter } from '../consume/dead-letter';
import type { DeadLetter } from '../../schemas/forward-rules';
import { logScope } from './ticket-log-source';
import { consumeIdOf, ticketIdOf } from './ticket-params';
import * as answer from '../../schemas/answers';
import { PAGING, ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

/**
 * A ticket's dead letters (issue 36 item 3, an extension): runs after the answer whose retry schedule ran
 * out, listed with why; replayed from their failed action (or whole), or deleted once dealt with.
 */
export const ticketDeadLetterRoutes = createRouter();

const owner = guard('owner', "Only the project owner can read or replay a ticket's dead letters.");
const DEAD_LETTERS = `${PROJECT_PATH}/tickets/:ticket_id/dead-letters`;
const notADeadLetter = () => new SvcHttpError('NOT_FOUND', 'This ticket has no dead letter with this consume_id.', { status: 404 });

const isPosition = (value: unknown): value is { t: number; k: string } =>
  typeof value === 'object' && value !== null && typeof (value as { t?: unknown }).t === 'number' && typeof (value as { k?: unknown }).k === 'string';

/** A ticket's dead letter as the listing answers it (the item forwarding's dead letters share). */
const itemOf = (ticketId: string, letter: TicketDeadLetter): DeadLetter => ({
  id: letter.consume_id,
  kind: 'ticket',
  what: letter.what,
  created: letter.created,
  failed_at: letter.failed_at,
  reason: letter.reason,
  ...(letter.status_code !== undefined ? { status_code: letter.status_code } : {}),
  error: letter.error,
  attempts: letter.attempts,
  waits: letter.waits,
  ticket: { ticket_id: ticketId, consume_id: letter.consume_id, act: letter.act, path: letter.path },
});

const listTicketDeadLettersRoute = route({
  operationId: 'listTicketDeadLetters',
  tag: 'tickets',
  guard: owner,
  query: {
    reason: { description: 'Only dead letters that failed for this reason.', schema: z.enum(DEAD_LETTER_REASONS) },
    from: { description: 'Failed at or after, ms since the epoch.', schema: z.int().min(0) },
    to: { description: 'Failed at or before, ms since the epoch.', schema: z.int().min(0) },
    ...PAGING,
  },
  summary:
    "Extension: the ticket's dead letters, newest first: runs after the answer whose retry_schedule ran out on a failure it retries, with why. Kept for the plan's log retention.",
  success: ok('A page of dead letters.', answer.listingOf(answer.deadLetterAnswer)),
});

ticketDeadLetterRoutes.get(DEAD_LETTERS, ...listTicketDeadLettersRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const parsed = await checked(() => parseOrRefuse(ticketDeadLetterQuerySchema, c.req.query()));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  const { reason, from, to } = parsed.value;
  const stub = ticketStub(c.env, project.service_id, ticketId);
  const page = await pageOf(pageRequest(c.req), {
    isPosition,
    rows: (after, count) =>
      stub.deadLetterPage(logScope(project, ticketId), { ...(reason ? { reason } : {}), from: from ?? 0, to: to ?? Number.MAX_SAFE_INTEGER, after, count }),
    position: (letter) => ({ t: letter.failed_at, k: letter.consume_id }),
    shape: (letter) => itemOf(ticketId, letter),
  });
  return c.json(page);
});

const replayDeadLetterRoute = route({
  operationId: 'replayTicketDeadLetter',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  body: z.strictObject({ full: z.boolean().optional().describe('Run the whole chain again, the actions that already succeeded included.') }),
  bodyOptional: true,
  summary:
    'Extension: replay a dead letter as a new consumption marked replay_of: from its failed action (actions that succeeded do not run again), or whole with full. A replay that succeeds takes it off the list.',
  success: ok('What the replay answered.', answer.deadLetterReplayAnswer),
});

ticketDeadLetterRoutes.post(`${DEAD_LETTERS}/:consume_id/replay`, ...replayDeadLetterRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const consumeId = consumeIdOf(c.req.param('consume_id'));
  const { full = false } = await readBody(c, replayDeadLetterRoute);
  const stub = ticketStub(c.env, project.service_id, ticketId);
  if (!(await stub.isDeadLetter(consumeId))) throw notADeadLetter();
  const kept = await stub.keptRequest(logScope(project, ticketId), consumeId);
  const input = await replayOfEntry(c.env, project.service_id, ticketId, consumeId, kept, 'consume');
  const outcome = (await stub.replayDeadLetter(input, full)) as ConsumeOutcome | undefined;
  if (!outcome) throw notADeadLetter();
  const head = { ticket_id: ticketId, replay_of: consumeId, partial: !full };
  if (outcome.ok) return c.json({ ...head, ok: true, status: outcome.status, body: outcome.body });
  const { ticket_id: _, ...error } = outcome.error;
  return c.json({ ...head, ok: false, status: outcome.status, error });
});

const deleteDeadLetterRoute = route({
  operationId: 'deleteTicketDeadLetter',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  summary: "Extension: delete a dead letter the owner dealt with (its consumption's log entry stays).",
  success: ok('Deleted.', answer.removalAnswer),
});

ticketDeadLetterRoutes.delete(`${DEAD_LETTERS}/:consume_id`, ...deleteDeadLetterRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const consumeId = consumeIdOf(c.req.param('consume_id'));
  if (!(await ticketStub(c.env, project.service_id, ticketId).deleteDeadLetter(consumeId))) throw notADeadLetter();
  return c.json({ removed: true, message: 'SUCCESS: The dead letter was deleted.' });
});
