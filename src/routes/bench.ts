import { createRouter } from '../app';
import { isTrue } from '../env';
import { SvcHttpError } from '../http/errors';
import { ticketStub } from '../../durable-objects/ticket-do';

/**
 * Routes used only by `npm run bench`, answered when BENCH_ROUTES is "true" (404 otherwise, as any
 * unknown route). They touch a fixed object that holds no ticket, so they reveal nothing.
 */
export const benchRoutes = createRouter();

benchRoutes.use('/v1/bench/*', async (c, next) => {
  if (!isTrue(c.env.BENCH_ROUTES)) throw new SvcHttpError('NOT_FOUND', 'No such route.', { status: 404 });
  await next();
});

/** A bare TicketDO round trip: Worker → RPC → one SQLite read → answer. */
benchRoutes.get('/v1/bench/ticket-do', async (c) => c.json(await ticketStub(c.env, 'bench', 'round-trip').status()));
