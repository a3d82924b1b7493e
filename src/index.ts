import { createRouter, renderError } from './app';
import type { Env, WorkMessage } from './env';
import { corsMiddleware } from './http/cors';
import { SvcHttpError } from './http/errors';
import { runRetention } from './logs/retention';
import { consumeWorkBatch } from './queue/consume-batch';
import { ownerResourcesRouter } from './routes/owner-resources';
import { projectsRouter } from './routes/projects';
import { consumeRoutes } from './routes/consume';
import { consumedRoutes } from './routes/consumed';
import { benchRoutes } from './routes/bench';
import { ticketRoutes } from './routes/tickets';
import { recordsRouter } from './routes/records';
import { mailOutboxRouter } from './routes/mail-outbox';
import { subscribersRouter } from './routes/subscribers';

export { TicketDO } from '../durable-objects/ticket-do';
export { ForwardQueueDO } from '../durable-objects/forward-queue-do';

const app = createRouter();

app.use('*', corsMiddleware);

app.get('/v1/health', (c) => c.json({ ok: true }));
app.route('/', projectsRouter);
app.route('/', ownerResourcesRouter);
app.route('/', ticketRoutes);
app.route('/', consumedRoutes);
app.route('/', consumeRoutes);
app.route('/', benchRoutes);
app.route('/', recordsRouter);
app.route('/', mailOutboxRouter);
app.route('/', subscribersRouter);

app.notFound(() => renderError(new SvcHttpError('NOT_FOUND', 'No such route.', { status: 404 })));
app.onError((err) => renderError(err));

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<WorkMessage>, env: Env) => consumeWorkBatch(batch, env),
  // The cron of wrangler.toml [triggers]: ticket log retention by plan, cut off at the scheduled time.
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    ctx.waitUntil(runRetention(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, WorkMessage>;
