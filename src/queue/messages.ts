import { z } from 'zod';
import { HISTORY_CLEANUP_KIND, type HistoryCleanupMessage } from '../forward/history-cleanup';
import { CLEAR_LOG_KIND, type ClearLogMessage } from '../ticket-log/clear-log';
import { RETENTION_KIND, type RetentionMessage } from '../ticket-log/retention';
import { MAIL_CLEANUP_KIND, type CleanupMessage } from '../mail/cleanup';
import { ALERT_DELIVER_KIND, type AlertDeliverMessage } from '../alerts/deliver';
import { ALERT_EVALUATE_KIND, type AlertEvaluateMessage } from '../alerts/run';
import { NEWSLETTER_BATCH_KIND, NEWSLETTER_PLAN_KIND, type BatchMessage, type PlanMessage } from '../mail/newsletter-jobs';

const count = z.number().int().nonnegative();

/** Every message the work queues carry, one schema per kind; each matches the type its producer sends. */
export const workMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal(CLEAR_LOG_KIND),
    service_id: z.string(),
    ticket_id: z.string(),
    before: z.number(),
    sweep: z.boolean().optional(),
  }) satisfies z.ZodType<ClearLogMessage>,
  z.object({ kind: z.literal(RETENTION_KIND), now: z.number(), after: z.string() }) satisfies z.ZodType<RetentionMessage>,
  z.object({ kind: z.literal(HISTORY_CLEANUP_KIND), now: z.number() }) satisfies z.ZodType<HistoryCleanupMessage>,
  z.object({
    kind: z.literal(NEWSLETTER_PLAN_KIND),
    service_id: z.string(),
    send_id: z.string(),
    after: z.string().nullable(),
    next_batch: count,
  }) satisfies z.ZodType<PlanMessage>,
  z.object({
    kind: z.literal(NEWSLETTER_BATCH_KIND),
    service_id: z.string(),
    send_id: z.string(),
    batch: count,
    recipients: z.array(z.string()),
  }) satisfies z.ZodType<BatchMessage>,
  z.object({ kind: z.literal(MAIL_CLEANUP_KIND), now: z.number() }) satisfies z.ZodType<CleanupMessage>,
  z.object({
    kind: z.literal(ALERT_EVALUATE_KIND),
    now: z.number(),
    after: z.object({ service_id: z.string(), rule_id: z.string() }),
  }) satisfies z.ZodType<AlertEvaluateMessage>,
  z.object({
    kind: z.literal(ALERT_DELIVER_KIND),
    service_id: z.string(),
    incident_id: z.string(),
    event: z.enum(['alert.opened', 'alert.resolved']),
  }) satisfies z.ZodType<AlertDeliverMessage>,
]);

/** A work message that passed workMessageSchema. */
export type QueuedWork = z.infer<typeof workMessageSchema>;

/** The message of each kind, by kind. */
export type WorkByKind = { [M in QueuedWork as M['kind']]: M };
