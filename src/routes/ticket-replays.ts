import { createRouter } from '../app';
import { replayOfEntry } from '../consume/replay-input';
import type { ConsumeInput, ConsumeOutcome } from '../consume/types';
import type { Env } from '../env';
import { PROJECT_PATH, guard } from '../http/guards';
import type { Project } from '../platform/types';
import { logScope } from './ticket-log-source';
import { consumeIdOf, ticketIdOf } from './ticket-params';
import { checkVerdict } from './ticket-views';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { route } from '../openapi/route';

const owner = guard('owner', 'Only the project owner can re-check or replay a consumption.');

/** The owner re-checks a logged consumption against the current definition, or replays it as a new one. */
export const ticketReplayRoutes = createRouter();

const LOGGED = `${PROJECT_PATH}/tickets/:ticket_id/log/:consume_id`;

const recheckConsumptionRoute = route({
  operationId: 'recheckConsumption',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  summary: "Judge a logged consumption's request against the current definition (a dry run marked replay_of): no action, no count.",
  success: ok('Whether it would pass now.', answer.recheckAnswer),
});

ticketReplayRoutes.post(`${LOGGED}/recheck`, ...recheckConsumptionRoute.middleware, async (c) => {
  const { ticketId, consumeId, input } = await replayOf(c.env, c.get('project'), c.req.param('ticket_id'), c.req.param('consume_id'), 'check');
  const outcome = (await ticketStub(c.env, input.project.service_id, ticketId).consume(input)) as ConsumeOutcome;
  return c.json(checkVerdict(ticketId, outcome, { replay_of: consumeId }));
});

const replayConsumptionRoute = route({
  operationId: 'replayConsumption',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  summary:
    "Replay a logged consumption's request as a new consumption marked replay_of (its actions run, a count is used); the signature judged as at its arrival.",
  success: ok('What the consumption answered.', answer.replayAnswer),
});

ticketReplayRoutes.post(`${LOGGED}/replay`, ...replayConsumptionRoute.middleware, async (c) => {
  const { ticketId, consumeId, input } = await replayOf(c.env, c.get('project'), c.req.param('ticket_id'), c.req.param('consume_id'), 'consume');
  const outcome = (await ticketStub(c.env, input.project.service_id, ticketId).consume(input)) as ConsumeOutcome;
  if (outcome.ok) return c.json({ ticket_id: ticketId, replay_of: consumeId, ok: true, status: outcome.status, body: outcome.body });
  const { ticket_id: _, ...error } = outcome.error;
  return c.json({ ticket_id: ticketId, replay_of: consumeId, ok: false, status: outcome.status, error });
});

async function replayOf(env: Env, project: Project, ticketParam: string | undefined, consumeParam: string | undefined, mode: ConsumeInput['mode']) {
  const ticketId = ticketIdOf(ticketParam);
  const consumeId = consumeIdOf(consumeParam);
  const kept = await ticketStub(env, project.service_id, ticketId).keptRequest(logScope(project, ticketId), consumeId);
  return { ticketId, consumeId, input: await replayOfEntry(env, project.service_id, ticketId, consumeId, kept, mode) };
}
