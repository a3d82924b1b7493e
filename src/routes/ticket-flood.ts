import { createRouter } from '../app';
import { invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { ticketIdOf } from './ticket-params';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { z } from 'zod';
import { ok } from '../openapi/route-parts';
import { route } from '../openapi/route';

const MINUTE_MS = 60_000;
/** The counts are kept a day; an hour is shown unless `from` asks for more. */
const DEFAULT_SPAN_MS = 3_600_000;
const KEPT_MS = 86_400_000;

/** Issue 26 item 6: whether a ticket is being limited, per minute (docs/limits.md "Seeing a flood"). */
export const ticketFloodRoutes = createRouter();

const getTicketFloodRoute = route({
  operationId: 'getTicketFlood',
  tag: 'tickets',
  guard: guard('owner', "Only the project owner can read a ticket's flood counts."),
  query: { from: { description: 'From this time (ms); default an hour ago; at most a day back.', schema: z.int().min(0) } },
  summary: 'Whether the ticket is being limited: per minute, the requests refused (429) and the failures or dry runs counted instead of kept (issue 26).',
  success: ok('The minutes with a refusal or a counted entry, oldest first.', answer.ticketFloodAnswer),
});

ticketFloodRoutes.get(`${PROJECT_PATH}/tickets/:ticket_id/flood`, ...getTicketFloodRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const now = Date.now();
  const raw = c.req.query('from');
  const from = raw === undefined ? now - DEFAULT_SPAN_MS : Number(raw);
  if (!/^\d+$/.test(raw ?? '0') || !Number.isSafeInteger(from)) throw invalidParameter('Invalid "from": a time in ms since the epoch.', { field: 'from' });
  const minutes = await ticketStub(c.env, project.service_id, ticketId).floodMinutes(Math.max(from, now - KEPT_MS));
  return c.json({ ticket_id: ticketId, minutes: minutes.map((m) => ({ minute: m.minute * MINUTE_MS, limited: m.limited, sampled: m.sampled })) });
});
