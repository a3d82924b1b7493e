import { createRouter } from '../app';
import { PROJECT_PATH, guard } from '../http/guards';
import { ticketIdOf } from './ticket-params';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { route } from '../openapi/route';

/**
 * Issue 33: the work a ticket's object has scheduled (continuations, log exports) and the jobs it gave up
 * after failing on every try, so an owner sees work that will never run. Payloads are not shown: a
 * continuation's state holds the answers of its actions.
 */
export const ticketJobRoutes = createRouter();

const getTicketJobsRoute = route({
  operationId: 'getTicketJobs',
  tag: 'tickets',
  guard: guard('owner', "Only the project owner can read a ticket's jobs."),
  summary:
    "The ticket object's scheduled work (continuations after resp, log exports) and the jobs it gave up after failing on every try (issue 33, an extension).",
  success: ok('Scheduled and given-up jobs, without their payloads.', answer.ticketJobsAnswer),
});

ticketJobRoutes.get(`${PROJECT_PATH}/tickets/:ticket_id/jobs`, ...getTicketJobsRoute.middleware, async (c) => {
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const stub = ticketStub(c.env, c.get('project').service_id, ticketId);
  const [scheduled, dead] = await Promise.all([stub.scheduledJobs(), stub.deadJobs()]);
  return c.json({
    ticket_id: ticketId,
    scheduled: scheduled.map(({ kind, run_at, running }) => ({ kind, run_at, running })),
    dead: dead.map(({ kind, died_at, tries, error }) => ({ kind, died_at, tries, error })),
  });
});
