import { createRouter, renderError } from './app';
import type { Env, WorkMessage } from './env';
import { SvcHttpError } from './http/errors';
import { consumeWorkBatch } from './queue/consume-batch';
import { ownerResourcesRouter } from './routes/owner-resources';
import { projectsRouter } from './routes/projects';
import { consumeRoutes } from './routes/consume';
import { ticketRoutes } from './routes/tickets';

export { TicketDO } from '../durable-objects/ticket-do';
export { ForwardQueueDO } from '../durable-objects/forward-queue-do';

const app = createRouter();

app.get('/v1/health', (c) => c.json({ ok: true }));
app.route('/', projectsRouter);
app.route('/', ownerResourcesRouter);
app.route('/', ticketRoutes);
app.route('/', consumeRoutes);

app.notFound(() => renderError(new SvcHttpError('NOT_FOUND', 'No such route.', { status: 404 })));
app.onError((err) => renderError(err));

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<WorkMessage>, env: Env) => consumeWorkBatch(batch, env),
} satisfies ExportedHandler<Env, WorkMessage>;
