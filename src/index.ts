import type { Env, WorkMessage } from './env';
import { runHistoryCleanup, wakeLegacyCallers } from './forward/history-cleanup';
import { pastRateWindows } from './rate-limits/key-limits';
import { runRetention } from './ticket-log/retention';
import { runMailCleanup } from './mail/cleanup';
import { consumeWorkBatch } from './queue/consume-batch';
import { strictHandlers } from './platform/strict-entry';
import { app } from './router';
import { EVERY_MINUTE, evaluateAlertPage } from './alerts/run';
import { forwardQueueStub } from './platform/object-stubs';

export { TicketDO } from '../durable-objects/ticket-do';
export { ForwardQueueDO } from '../durable-objects/forward-queue-do';
export { RealtimeDO } from '../durable-objects/realtime-do';

// With SVC_STRICT_LIMITS set, each invocation counts against Cloudflare's limits (docs/limits.md).
export default strictHandlers<Env, WorkMessage>({
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  queue: (batch: MessageBatch<WorkMessage>, env: Env) => consumeWorkBatch(batch, env),
  // The cron of wrangler.toml [triggers]: ticket log retention by plan, cut off at the scheduled time;
  // expired forwarded requests and spent rate-limit counters; expired mail and its bodies. The four
  // share one invocation's 50 D1 queries (Free): 20 + 2×4 + (10+2) + 1 + 1 = 42; each continues in
  // work-queue messages, one per invocation, with a full share.
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    // Each minute: the first page of alert rules (src/alerts/run.ts: 31 D1 queries at most; the rest in work-queue messages).
    if (controller.cron === EVERY_MINUTE) {
      ctx.waitUntil(evaluateAlertPage(env, controller.scheduledTime, null));
      return;
    }
    ctx.waitUntil(runRetention(env, controller.scheduledTime, '', 20));
    ctx.waitUntil(runMailCleanup(env, controller.scheduledTime, { roundTrips: 2, pages: 2 }));
    ctx.waitUntil(runHistoryCleanup(env, controller.scheduledTime, 10));
    ctx.waitUntil(pastRateWindows(env.DB, controller.scheduledTime).run());
    // Callers whose history D1 still holds (migration 0021): one D1 query and at most 10 object calls.
    ctx.waitUntil(wakeLegacyCallers(env.DB, (owner) => forwardQueueStub(env, owner).importHistory(owner)));
  },
});
