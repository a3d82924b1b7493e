import type { Env } from '../env';
import { isMailAddress } from './address';
import { composeMail } from './compose';
import { BATCHES_PER_PLAN_STEP, NEWSLETTER_BATCH_SIZE, chunkForQueue, newsletterMailKey, splitIntoBatches } from './newsletter-batches';
import type { MailContent } from './compose';
import {
  type NewsletterSend,
  claimBatch,
  loadSend,
  markBatchSent,
  recordSendWarning,
  releaseSendBody,
  sendContent,
  sendExpiry,
  setPlannedBatches,
} from './newsletter-sends';
import { selectTransport } from './select-transport';
import { listSubscribers } from './subscribers';
import type { MailTransport, SendOutcome } from './transport';
import { countMail } from './usage';

/**
 * Work-queue jobs of a newsletter send. A planning step puts up to BATCHES_PER_PLAN_STEP batches of
 * NEWSLETTER_BATCH_SIZE subscribers on the queue and hands the rest to the next step; each batch is
 * one message. Every step is idempotent: batches are numbered, a batch marked sent is skipped, and
 * each mail carries the key newsletter:<send_id>:<address>, so a batch sent again after a crash
 * delivers nothing twice (the outbox stores a key once; the provider gets it as Idempotency-Key).
 */

export const NEWSLETTER_PLAN_KIND = 'newsletter-plan';
export const NEWSLETTER_BATCH_KIND = 'newsletter-batch';
/** Mails of one batch in flight at once (at most 6 connections wait for headers; a send waits for its headers nearly all its time). */
const SEND_CONCURRENCY = 6;

export type PlanMessage = {
  kind: typeof NEWSLETTER_PLAN_KIND;
  service_id: string;
  send_id: string;
  /** Last address planned by the previous step; null at the start. */
  after: string | null;
  next_batch: number;
};

export type BatchMessage = {
  kind: typeof NEWSLETTER_BATCH_KIND;
  service_id: string;
  send_id: string;
  batch: number;
  recipients: string[];
};

export const firstPlanMessage = (serviceId: string, sendId: string): PlanMessage => ({
  kind: NEWSLETTER_PLAN_KIND,
  service_id: serviceId,
  send_id: sendId,
  after: null,
  next_batch: 0,
});

export async function planNewsletterJob(plan: PlanMessage, env: Env): Promise<void> {
  const send = await loadSend(env.DB, plan.service_id, plan.send_id);
  if (!send) return;
  const pageSize = NEWSLETTER_BATCH_SIZE * BATCHES_PER_PLAN_STEP;
  // One more than a step takes says whether another step follows.
  const page = await listSubscribers(env.DB, plan.service_id, send.group_key, plan.after, pageSize + 1);
  const addresses = page.slice(0, pageSize).map((subscriber) => subscriber.email);
  const batches = splitIntoBatches(addresses, NEWSLETTER_BATCH_SIZE, plan.next_batch);
  const bodies: BatchMessage[] = batches.map(({ batch, recipients }) => ({
    kind: NEWSLETTER_BATCH_KIND,
    service_id: plan.service_id,
    send_id: plan.send_id,
    batch,
    recipients,
  }));
  for (const chunk of chunkForQueue(bodies)) await env.NEWSLETTER_QUEUE.sendBatch(chunk.map((body) => ({ body })));
  const nextBatch = plan.next_batch + batches.length;
  if (page.length > pageSize) {
    const next: PlanMessage = { ...plan, after: addresses[addresses.length - 1], next_batch: nextBatch };
    await env.WORK_QUEUE.send(next);
  } else {
    await setPlannedBatches(env.DB, plan.service_id, plan.send_id, nextBatch, Date.now());
    await releaseBody(env, plan);
  }
}

/** Sends to every address, SEND_CONCURRENCY at a time. */
async function sendAll(transport: MailTransport, send: NewsletterSend, snapshot: MailContent, serviceId: string, recipients: string[]): Promise<SendOutcome[]> {
  const outcomes: SendOutcome[] = new Array(recipients.length);
  let next = 0;
  const worker = async () => {
    while (next < recipients.length) {
      const index = next++;
      const to = recipients[index];
      if (!isMailAddress(to)) {
        outcomes[index] = { ok: false, permanent: true, reason: 'Not an e-mail address.' };
        continue;
      }
      const content = composeMail(snapshot, { service_name: send.service_name, email: to });
      outcomes[index] = await transport.send(
        { from: send.from, to, ...content },
        {
          service_id: serviceId,
          key: newsletterMailKey(send.send_id, to),
          kind: 'newsletter',
          send_id: send.send_id,
          expires: sendExpiry(send),
          ...(send.body_key ? { shared_body_key: send.body_key } : {}),
          ...(send.ticket_id ? { ticket_id: send.ticket_id } : {}),
          ...(send.consume_id ? { consume_id: send.consume_id } : {}),
        },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, recipients.length) }, worker));
  return outcomes;
}

/**
 * Sends one batch. A batch already marked sent is skipped. A mail that failed for a reason that may
 * pass (provider down, 429, timeout) fails the message, which the queue delivers again. Once every
 * mail went out, a failure to mark the batch sent or to count the mails does not resend anything:
 * it leaves a warning on the batch, the send and the nlsd action's log row.
 */
export async function sendNewsletterBatchJob(job: BatchMessage, env: Env): Promise<void> {
  const send = await loadSend(env.DB, job.service_id, job.send_id);
  // A send past its lifetime is left to the cleanup: its mails would leave at once.
  if (!send || sendExpiry(send) <= Date.now()) return;
  if ((await claimBatch(env.DB, job.service_id, job.send_id, job.batch, job.recipients.length, Date.now())) === 'sent') return;

  const outcomes = await sendAll(selectTransport(env), send, await sendContent(env.BODIES, send), job.service_id, job.recipients);
  const retry = outcomes.find((outcome) => !outcome.ok && !outcome.permanent);
  if (retry && !retry.ok) throw new Error(`newsletter batch ${job.batch} of ${job.send_id}: ${retry.reason}`);
  // A mail an earlier delivery of this message already sent counts here too: a batch is counted once, when marked.
  const delivered = outcomes.filter((outcome) => outcome.ok).length;
  const refused = outcomes.filter((outcome) => !outcome.ok).length;

  const warnings: string[] = [];
  let marked: boolean;
  try {
    marked = await markBatchSent(env.DB, job.service_id, job.send_id, job.batch, { delivered, refused }, Date.now());
  } catch {
    warnings.push('the mail went out but the batch could not be marked sent');
    marked = true;
  }
  // Not marked = another delivery of this message marked it and counted its mails.
  if (marked && delivered > 0) {
    try {
      await countMail(env.DB, job.service_id, Date.now(), { newsletter_mails: delivered });
    } catch {
      warnings.push(`${delivered} mails went out but could not be counted`);
    }
  }
  if (marked) await releaseBody(env, job);
  if (warnings.length === 0) return;
  const warning = warnings.join('; ');
  console.warn(`newsletter ${job.send_id} batch ${job.batch}: ${warning}`);
  try {
    await recordSendWarning(env, job.service_id, send, job.batch, warning, Date.now());
  } catch (err) {
    console.error('newsletter warning could not be stored', err instanceof Error ? err.message : String(err));
  }
}

/** The send's snapshot leaves once its last batch is marked (or planned); a failure here leaves it to the cleanup. */
async function releaseBody(env: Env, job: { service_id: string; send_id: string }): Promise<void> {
  try {
    await releaseSendBody(env.DB, env.BODIES, job.service_id, job.send_id);
  } catch (err) {
    console.warn(`newsletter ${job.send_id}: snapshot left to the cleanup`, err instanceof Error ? err.message : String(err));
  }
}
