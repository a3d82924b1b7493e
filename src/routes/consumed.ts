import { TICKET_ID_PATTERN } from '../../schemas/ticket';
import { createRouter } from '../app';
import { invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageRequest } from '../wire/paging';
import { listConsumed } from '../ticket-log/log-queries';
import { consumedRowsOf } from './ticket-log-source';
import * as answer from '../../schemas/answers';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';

/** getConsumedTickets: the signed-in caller's own consumptions made on the signed-in endpoint. */
export const consumedRoutes = createRouter();

const getConsumedTicketsRoute = route({
  operationId: 'getConsumedTickets',
  tag: 'tickets',
  guard: guard('user', 'Sign in to list your consumed tickets: send an id token.'),
  auth: 'id-token',
  query: { ticket_id: textParameter('Only this ticket.'), ...PAGING },
  summary: "getConsumedTickets: the caller's own signed-in consumptions.",
  success: ok('A page of consumptions.', answer.listingOf(answer.consumedAnswer)),
});

consumedRoutes.get(`${PROJECT_PATH}/consumed`, ...getConsumedTicketsRoute.middleware, async (c) => {
  const caller = c.get('caller');
  // The owner is no user of the project and cannot consume on the signed-in endpoint: an empty list.
  const userId = caller.kind === 'owner' ? caller.owner_id : caller.user.user_id;
  const ticketId = c.req.query('ticket_id') || undefined;
  if (ticketId !== undefined && !TICKET_ID_PATTERN.test(ticketId)) {
    throw invalidParameter('Invalid "ticket_id": not a ticket id.', { field: 'ticket_id' });
  }
  const project = c.get('project');
  return c.json(await listConsumed(c.env.DB, project.service_id, userId, ticketId, pageRequest(c.req), consumedRowsOf(c.env, project)));
});
