import { createRouter } from '../app';
import { replayInput } from '../consume/replay-input';
import { consumingProject } from '../consume/project-cache';
import type { ConsumeInput, ConsumeOutcome } from '../consume/types';
import type { Env } from '../env';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { MAX_KEPT_BODY_BYTES, keptBodyBytes } from '../ticket-log/kept-request';
import type { Project } from '../platform/types';
import { loadUser } from '../platform/users';
import { logScope } from './ticket-log-source';
import { ticketIdOf } from './ticket-params';
import { checkVerdict } from './ticket-views';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { route } from '../openapi/route';

const owner = guard('owner', 'Only the project owner can re-check or replay a consumption.');
/** A consume_id as the log writes them (base62 time + 4 random characters). */
const CONSUME_ID = /^[0-9A-Za-z]{5,32}$/;
const cannotReplay = (message: string) => new SvcHttpError('INVALID_REQUEST', message, { status: 400 });

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
  const consumeId = consumeParam ?? '';
  if (!CONSUME_ID.test(consumeId)) throw invalidParameter('Invalid "consume_id": not a consume id.', { field: 'consume_id' });
  const kept = await ticketStub(env, project.service_id, ticketId).keptRequest(logScope(project, ticketId), consumeId);
  if (kept === undefined) throw new SvcHttpError('NOT_FOUND', 'The log of this ticket has no consumption with this consume_id.', { status: 404 });
  if (kept === null) throw cannotReplay('This consumption was logged before requests were kept: it cannot be re-checked or replayed.');
  const body = keptBodyBytes(kept.body);
  if (!body) throw cannotReplay(`Its body was over ${MAX_KEPT_BODY_BYTES} bytes and was not kept: it cannot be re-checked or replayed.`);
  const user = kept.user_id === undefined ? undefined : await loadUser(env, project.service_id, kept.user_id);
  if (kept.user_id !== undefined && !user) throw cannotReplay('The user who made this consumption no longer exists.');
  const consuming = await consumingProject(env, project.service_id);
  const projectPart = { service_id: consuming.service_id, owner_id: consuming.owner_id, receipt_key: consuming.receipt_key, plan: consuming.plan };
  return { ticketId, consumeId, input: replayInput(kept, body, projectPart, ticketId, consumeId, mode, user ?? undefined) };
}
