import type { Env, WorkMessage } from '../env';
import { CLEAR_LOG_KIND, clearLogJob } from '../logs/clear-log';
import { RETENTION_KIND, retentionJob } from '../logs/retention';
import { NEWSLETTER_BATCH_KIND, NEWSLETTER_PLAN_KIND, planNewsletterJob, sendNewsletterBatchJob } from '../mail/newsletter-jobs';

/** A consumer of one kind of work message; must be idempotent (delivery is at least once). */
export type WorkHandler = (message: WorkMessage, env: Env) => Promise<void>;

/** Work message kinds and their consumers. Add one line per kind. */
export const WORK_HANDLERS: Record<string, WorkHandler> = {
  [CLEAR_LOG_KIND]: clearLogJob,
  [RETENTION_KIND]: retentionJob,
  [NEWSLETTER_PLAN_KIND]: planNewsletterJob,
  [NEWSLETTER_BATCH_KIND]: sendNewsletterBatchJob,
};
