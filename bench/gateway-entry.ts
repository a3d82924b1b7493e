/**
 * The Worker `npm run bench` runs: the gateway as shipped, plus the routes only the bench uses
 * (/v1/bench/*). The production entry (src/index.ts) never imports this file, so these routes are
 * neither in the deployed bundle nor in /openapi.json.
 */
import { ticketStub } from '../durable-objects/ticket-do';
import type { Env, WorkMessage } from '../src/env';
import gateway from '../src/index';

export { ForwardQueueDO, RealtimeDO, TicketDO } from '../src/index';

/** A bare TicketDO round trip: Worker → RPC → one SQLite read → answer. The object holds no ticket, so it reveals nothing. */
const TICKET_DO_ROUND_TRIP = '/v1/bench/ticket-do';

export default {
  ...gateway,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (request.method === 'GET' && new URL(request.url).pathname === TICKET_DO_ROUND_TRIP) {
      return Response.json(await ticketStub(env, 'bench', 'round-trip').status());
    }
    return gateway.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env, WorkMessage>;
