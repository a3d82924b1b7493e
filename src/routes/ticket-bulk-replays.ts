import { createRouter } from '../app';
import { PROJECT_PATH, guard } from '../http/guards';
import { bulkReplayRequestSchema } from '../../schemas/bulk-replays';
import type { BulkReplay, Refusal, ReplayStart } from '../consume/bulk-replay';
import { ticketStub } from '../platform/object-stubs';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { logScope } from './ticket-log-source';
import { ticketIdOf } from './ticket-params';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

/**
 * Bulk replay (issue 36 item 4, an extension): the owner replays a selection of a ticket's consumptions,
 * everything a filter matches, or its dead letters, at a pace, in the background, with progress and cancel.
 */
export const ticketBulkReplayRoutes = createRouter();

const owner = guard('owner', "Only the project owner can replay a ticket's consumptions.");
const REPLAYS = `${PROJECT_PATH}/tickets/:ticket_id/replays`;
/** The object's refusal, thrown as the Worker's error. */
function refuse<T extends object>(answer: T | Refusal): T {
  if ('refused' in answer) {
    const { code, message, status, detail } = answer.refused;
    throw new SvcHttpError(code, message, { status, ...(detail ? { detail } : {}) });
  }
  return answer;
}

const noSuchReplay = () => new SvcHttpError('NOT_FOUND', 'This ticket has no bulk replay with this id.', { status: 404 });

/** A replay as answered: its filter and pace beside its progress. */
const replayView = ({ spec, ...replay }: BulkReplay) => ({ ...replay, filter: spec.filter, full: spec.full, per_minute: spec.per_minute });

function replayIdOf(param: string | undefined): number {
  const id = Number(param);
  if (!/^\d{1,15}$/.test(param ?? '') || !Number.isSafeInteger(id)) throw invalidParameter('Invalid "replay_id": not a replay id.', { field: 'replay_id' });
  return id;
}

const startBulkReplayRoute = route({
  operationId: 'startBulkReplay',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  body: bulkReplayRequestSchema,
  summary:
    "Extension: replay a ticket's consumptions by filter (consume_ids, from, to, outcome, code, or dead_letters), oldest first, per_minute at a time, in the background. dry_run answers how many it matches. Actions that succeeded never run again unless full.",
  success: ok('The count (dry run) or the replay started.', answer.bulkReplayStartAnswer),
});

ticketBulkReplayRoutes.post(REPLAYS, ...startBulkReplayRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const request = await readBody(c, startBulkReplayRoute);
  const stub = ticketStub(c.env, project.service_id, ticketId);
  if (!(await stub.status()).exists) throw new SvcHttpError('TICKET_NOT_FOUND', 'The ticket does not exist.', { status: 404 });
  const started = refuse((await stub.startReplay(logScope(project, ticketId), request)) as ReplayStart);
  return started.dry_run ? c.json(started) : c.json({ dry_run: false, replay: replayView(started.replay) });
});

const listBulkReplaysRoute = route({
  operationId: 'listBulkReplays',
  tag: 'tickets',
  guard: owner,
  summary: "Extension: the ticket's bulk replays, newest first (the latest 50), each with its progress.",
  success: ok('The replays.', answer.bulkReplayListAnswer),
});

ticketBulkReplayRoutes.get(REPLAYS, ...listBulkReplaysRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const list = await ticketStub(c.env, project.service_id, ticketId).replays();
  return c.json({ list: list.map(replayView) });
});

const getBulkReplayRoute = route({
  operationId: 'getBulkReplay',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  summary: 'Extension: one bulk replay with its progress.',
  success: ok('The replay.', answer.bulkReplayAnswer),
});

ticketBulkReplayRoutes.get(`${REPLAYS}/:replay_id`, ...getBulkReplayRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const replay = await ticketStub(c.env, project.service_id, ticketId).replay(replayIdOf(c.req.param('replay_id')));
  if (!replay) throw noSuchReplay();
  return c.json(replayView(replay));
});

const cancelBulkReplayRoute = route({
  operationId: 'cancelBulkReplay',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  summary: 'Extension: cancel a running bulk replay between two entries (what ran stays run). A replay that ended answers 409.',
  success: ok('The replay, cancelled.', answer.bulkReplayAnswer),
});

ticketBulkReplayRoutes.post(`${REPLAYS}/:replay_id/cancel`, ...cancelBulkReplayRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const replay = (await ticketStub(c.env, project.service_id, ticketId).cancelReplay(replayIdOf(c.req.param('replay_id')))) as BulkReplay | Refusal | undefined;
  if (!replay) throw noSuchReplay();
  return c.json(replayView(refuse(replay)));
});
