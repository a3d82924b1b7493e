import { TICKET_ID_PATTERN } from '../../schemas/ticket';
import { createRouter } from '../app';
import { resolveCaller } from '../http/auth';
import { SvcHttpError, invalidParameter } from '../http/errors';
import { pageSize } from '../http/paging';
import { listConsumed } from '../logs/log-queries';
import { loadActiveProject } from '../platform/projects';

/** getConsumedTickets: the signed-in caller's own consumptions made on the signed-in endpoint. */
export const consumedRoutes = createRouter();

consumedRoutes.get('/v1/projects/:sid/consumed', async (c) => {
  const project = await loadActiveProject(c.env, c.req.param('sid'));
  const caller = await resolveCaller(c.env, project, c.req.header('authorization'));
  if (caller.kind === 'anonymous') {
    throw new SvcHttpError('UNAUTHORIZED', 'Sign in to list your consumed tickets: send an id token.', { status: 401 });
  }
  // The owner is no user of the project and cannot consume on the signed-in endpoint: an empty list.
  const userId = caller.kind === 'owner' ? caller.owner_id : caller.user.user_id;
  const ticketId = c.req.query('ticket_id') || undefined;
  if (ticketId !== undefined && !TICKET_ID_PATTERN.test(ticketId)) {
    throw invalidParameter('Invalid "ticket_id": not a ticket id.', { field: 'ticket_id' });
  }
  const limit = pageSize(c.req.query('limit'));
  return c.json(await listConsumed(c.env.DB, project.service_id, userId, ticketId, { limit, startKey: c.req.query('startKey') }));
});
