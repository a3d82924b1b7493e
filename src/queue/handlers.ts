import type { Env } from '../env';
import { historyCleanupJob, HISTORY_CLEANUP_KIND } from '../forward/history-cleanup';
import { clearLogJob, CLEAR_LOG_KIND } from '../ticket-log/clear-log';
import { retentionJob, RETENTION_KIND } from '../ticket-log/retention';
import { MAIL_CLEANUP_KIND, mailCleanupJob } from '../mail/cleanup';
import { NEWSLETTER_BATCH_KIND, NEWSLETTER_PLAN_KIND, planNewsletterJob, sendNewsletterBatchJob } from '../mail/newsletter-jobs';
import { ALERT_DELIVER_KIND, deliverAlertJob } from '../alerts/deliver';
import { ALERT_EVALUATE_KIND, alertEvaluateJob } from '../alerts/run';
import type { QueuedWork, WorkByKind } from './messages';

/** The consumer of each kind of work message; each must be idempotent (delivery is at least once). */
type WorkHandlers = { [K in keyof WorkByKind]: (message: WorkByKind[K], env: Env) => Promise<void> };

/** Work message kinds and their consumers. Add one line per kind (and its schema in ./messages). */
const WORK_HANDLERS: WorkHandlers = {
  [CLEAR_LOG_KIND]: clearLogJob,
  [RETENTION_KIND]: retentionJob,
  [HISTORY_CLEANUP_KIND]: historyCleanupJob,
  [NEWSLETTER_PLAN_KIND]: planNewsletterJob,
  [NEWSLETTER_BATCH_KIND]: sendNewsletterBatchJob,
  [MAIL_CLEANUP_KIND]: mailCleanupJob,
  [ALERT_EVALUATE_KIND]: alertEvaluateJob,
  [ALERT_DELIVER_KIND]: deliverAlertJob,
};

/** Runs the consumer of the message's kind. */
export function runWorkHandler(message: QueuedWork, env: Env): Promise<void> {
  return handle(message.kind, message, env);
}

const handle = <K extends keyof WorkByKind>(kind: K, message: WorkByKind[K], env: Env): Promise<void> => WORK_HANDLERS[kind](message, env);
