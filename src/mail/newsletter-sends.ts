import type { Env } from '../env';
import { ticketObjectName } from '../platform/object-stubs';
import { dropBody, fitsInline, putBody, readBody } from './bodies';
import type { MailContent } from './compose';
import { effectiveExpiry, expiresAt } from './lifetime';

/**
 * D1 rows of newsletter sends (one per nlsd run) and their batches. A snapshot over INLINE_BODY_BYTES
 * lives in R2 (body_key; html and text of the row are then empty) and leaves once every batch is
 * sent and no outbox row reads it, or with the send at its expiry.
 */

export interface NewsletterSend extends MailContent {
  send_id: string;
  group_key: string;
  message_id: string;
  from: string;
  service_name: string;
  ticket_id: string | null;
  consume_id: string | null;
  action_path: string | null;
  planned_batches: number | null;
  warning: string | null;
  created: number;
  updated: number;
  /** R2 key of the snapshot (html and text above are then empty); null when inline. */
  body_key: string | null;
  /** When the send, its batches, its outbox mails and its snapshot leave; null (before 0014): created + lifetime. */
  expires: number | null;
}

const SEND_COLUMNS = `send_id, grp AS group_key, message_id, mail_from AS "from", subject, html, text, service_name, ticket_id, consume_id,
  action_path, planned_batches, warning, created, updated, body_key, expires`;

type NewSend = Omit<NewsletterSend, 'planned_batches' | 'warning' | 'updated' | 'body_key' | 'expires'>;

/**
 * Stores the send once; a second call with the same send id (a retried action) keeps the first.
 * A large snapshot is stored in R2 first, so the row never points at a body that is not there.
 */
export async function createSend(db: D1Database, serviceId: string, send: NewSend, bodies?: R2Bucket): Promise<void> {
  const expires = expiresAt(send.created);
  let bodyKey: string | null = null;
  if (!fitsInline(send)) {
    if (!bodies) throw new Error('a newsletter snapshot over the inline size needs the BODIES bucket');
    bodyKey = await putBody(bodies, serviceId, expires, { html: send.html, text: send.text, fill: { service_name: send.service_name } });
  }
  const result = await db
    .prepare(
      `INSERT INTO newsletter_sends (service_id, send_id, grp, message_id, mail_from, subject, html, text, service_name, ticket_id, consume_id,
         action_path, created, updated, body_key, expires)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13, ?14, ?15) ON CONFLICT DO NOTHING`,
    )
    .bind(
      serviceId,
      send.send_id,
      send.group_key,
      send.message_id,
      send.from,
      send.subject,
      bodyKey === null ? send.html : '',
      bodyKey === null ? send.text : '',
      send.service_name,
      send.ticket_id,
      send.consume_id,
      send.action_path,
      send.created,
      bodyKey,
      expires,
    )
    .run();
  if (result.meta.changes === 0 && bodyKey !== null && bodies) await dropBody(bodies, bodyKey);
}

/** The snapshot's subject, html and text, read from R2 when it is stored there. */
export async function sendContent(bodies: R2Bucket, send: NewsletterSend): Promise<MailContent> {
  if (send.body_key === null) return send;
  const { html, text } = await readBody(bodies, send.body_key);
  return { subject: send.subject, html, text };
}

export const sendExpiry = (send: NewsletterSend): number => effectiveExpiry(send);

export async function loadSend(db: D1Database, serviceId: string, sendId: string): Promise<NewsletterSend | null> {
  return db.prepare(`SELECT ${SEND_COLUMNS} FROM newsletter_sends WHERE service_id = ? AND send_id = ?`).bind(serviceId, sendId).first<NewsletterSend>();
}

/** Every subscriber is in a batch now: the send is done once that many batches are marked sent. */
export async function setPlannedBatches(db: D1Database, serviceId: string, sendId: string, batches: number, now: number): Promise<void> {
  await db
    .prepare('UPDATE newsletter_sends SET planned_batches = ?, updated = ? WHERE service_id = ? AND send_id = ?')
    .bind(batches, now, serviceId, sendId)
    .run();
}

export type BatchStatus = 'sending' | 'sent';

/** Records the batch as being sent unless it already exists; answers its status. */
export async function claimBatch(db: D1Database, serviceId: string, sendId: string, batch: number, recipients: number, now: number): Promise<BatchStatus> {
  const [, row] = await db.batch<{ status: BatchStatus }>([
    db
      .prepare(
        `INSERT INTO newsletter_batches (service_id, send_id, batch, status, recipients, created, updated)
         VALUES (?1, ?2, ?3, 'sending', ?4, ?5, ?5) ON CONFLICT DO NOTHING`,
      )
      .bind(serviceId, sendId, batch, recipients, now),
    db.prepare('SELECT status FROM newsletter_batches WHERE service_id = ? AND send_id = ? AND batch = ?').bind(serviceId, sendId, batch),
  ]);
  return row.results[0].status;
}

/** Marks a batch sent; false when it already was (another delivery of the message got there first). */
export async function markBatchSent(
  db: D1Database,
  serviceId: string,
  sendId: string,
  batch: number,
  counts: { delivered: number; refused: number },
  now: number,
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE newsletter_batches SET status = 'sent', delivered = ?, refused = ?, updated = ?
       WHERE service_id = ? AND send_id = ? AND batch = ? AND status = 'sending'`,
    )
    .bind(counts.delivered, counts.refused, now, serviceId, sendId, batch)
    .run();
  return result.meta.changes > 0;
}

/**
 * Writes a warning (mail went out but could not be counted or marked sent) on the batch, on the send
 * and on the nlsd action's row of the consumption log (in the ticket's object), where the log listing shows it.
 */
export async function recordSendWarning(env: Env, serviceId: string, send: NewsletterSend, batch: number, warning: string, now: number): Promise<void> {
  const db = env.DB;
  await db.batch([
    db
      .prepare('UPDATE newsletter_batches SET warning = ?, updated = ? WHERE service_id = ? AND send_id = ? AND batch = ?')
      .bind(warning, now, serviceId, send.send_id, batch),
    db
      .prepare(
        `UPDATE newsletter_sends SET warning = CASE WHEN warning IS NULL THEN ?1 ELSE warning || '; ' || ?1 END, updated = ?2
         WHERE service_id = ?3 AND send_id = ?4`,
      )
      .bind(`batch ${batch}: ${warning}`, now, serviceId, send.send_id),
  ]);
  if (send.ticket_id && send.consume_id && send.action_path) {
    const ticket = env.TICKETS.get(env.TICKETS.idFromName(ticketObjectName(serviceId, send.ticket_id)));
    await ticket.setActionWarning(
      { service_id: serviceId, ticket_id: send.ticket_id },
      send.consume_id,
      send.action_path,
      `Newsletter batch ${batch}: ${warning}`,
    );
  }
}

/**
 * Once every batch is sent and no outbox row reads the snapshot (the HTTP provider took every mail),
 * the snapshot leaves: the row's copy is emptied first, then the R2 object is deleted (a failure
 * there leaves it to the cleanup of its day). Answers whether it left now.
 */
export async function releaseSendBody(db: D1Database, bodies: R2Bucket, serviceId: string, sendId: string): Promise<boolean> {
  const [before, update] = await db.batch<{ body_key: string | null }>([
    db.prepare('SELECT body_key FROM newsletter_sends WHERE service_id = ? AND send_id = ?').bind(serviceId, sendId),
    db
      .prepare(
        `UPDATE newsletter_sends SET html = '', text = '', body_key = NULL
         WHERE service_id = ?1 AND send_id = ?2 AND (body_key IS NOT NULL OR html <> '' OR text <> '')
           AND planned_batches <= (SELECT COUNT(*) FROM newsletter_batches WHERE service_id = ?1 AND send_id = ?2 AND status = 'sent')
           AND NOT EXISTS (SELECT 1 FROM mail_outbox WHERE service_id = ?1
                             AND message_key >= 'newsletter:' || ?2 || ':' AND message_key < 'newsletter:' || ?2 || ';')`,
      )
      .bind(serviceId, sendId),
  ]);
  if (update.meta.changes === 0) return false;
  const key = before.results[0]?.body_key;
  if (key) await dropBody(bodies, key);
  return true;
}

export interface BatchProgress {
  batch: number;
  status: BatchStatus;
  recipients: number;
  delivered: number;
  refused: number;
  warning: string | null;
}

export async function listBatches(db: D1Database, serviceId: string, sendId: string): Promise<BatchProgress[]> {
  const { results } = await db
    .prepare('SELECT batch, status, recipients, delivered, refused, warning FROM newsletter_batches WHERE service_id = ? AND send_id = ? ORDER BY batch')
    .bind(serviceId, sendId)
    .all<BatchProgress>();
  return results;
}
