import type { Env, WorkMessage } from './env';
import { runRetention } from './logs/retention';
import { consumeWorkBatch } from './queue/consume-batch';
import { app } from './router';

export { TicketDO } from '../durable-objects/ticket-do';
export { ForwardQueueDO } from '../durable-objects/forward-queue-do';

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<WorkMessage>, env: Env) => consumeWorkBatch(batch, env),
  // The cron of wrangler.toml [triggers]: ticket log retention by plan, cut off at the scheduled time.
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    ctx.waitUntil(runRetention(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, WorkMessage>;
