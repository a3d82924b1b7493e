import { type StoredBody, bodyBytes, dropBody, fitsInline, putBody, readBodies } from './bodies';
import { composeMail } from './compose';
import { expiresAt, liveSql } from './lifetime';
import type { MailEnvelope, MailTransport, OutgoingMail, SendOutcome } from './transport';

/**
 * The local adapter (the default): each mail is a row of the D1 outbox, which the owner lists
 * (GET /v1/projects/{id}/mail-outbox). A key already in the outbox is not stored again. A body over
 * INLINE_BODY_BYTES is stored in R2 before the row (a row never points at a body not stored), or a
 * newsletter's mail points at its send's one snapshot (envelope.shared_body_key).
 */
export class OutboxTransport implements MailTransport {
  readonly name = 'outbox';

  constructor(
    private readonly db: D1Database,
    private readonly now: () => number = Date.now,
    private readonly bodies?: R2Bucket,
  ) {}

  async send(mail: OutgoingMail, envelope: MailEnvelope): Promise<SendOutcome> {
    const created = this.now();
    const expires = envelope.expires ?? expiresAt(created);
    const inline = fitsInline(mail);
    let bodyKey: string | null = null;
    let ownBody = false;
    if (!inline && envelope.shared_body_key) bodyKey = envelope.shared_body_key;
    else if (!inline) {
      if (!this.bodies) throw new Error('the outbox needs the BODIES bucket for a body over the inline size');
      bodyKey = await putBody(this.bodies, envelope.service_id, expires, { html: mail.html, text: mail.text });
      ownBody = true;
    }
    const result = await this.db
      .prepare(
        `INSERT INTO mail_outbox (service_id, message_key, kind, mail_from, mail_to, subject, html, text, ticket_id, consume_id, send_id, created,
           body_key, body_bytes, expires)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .bind(
        envelope.service_id,
        envelope.key,
        envelope.kind,
        mail.from,
        mail.to,
        mail.subject,
        inline ? mail.html : '',
        inline ? mail.text : '',
        envelope.ticket_id ?? null,
        envelope.consume_id ?? null,
        envelope.send_id ?? null,
        created,
        bodyKey,
        bodyBytes(mail),
        expires,
      )
      .run();
    const duplicate = result.meta.changes === 0;
    // The row already sent keeps its own body; this copy was never referenced.
    if (duplicate && ownBody && bodyKey && this.bodies) await dropBody(this.bodies, bodyKey);
    return { ok: true, id: envelope.key, duplicate };
  }
}

export interface OutboxMail extends OutgoingMail {
  message_key: string;
  kind: 'mail' | 'newsletter';
  ticket_id: string | null;
  consume_id: string | null;
  send_id: string | null;
  created: number;
}

interface OutboxRow extends OutboxMail {
  body_key: string | null;
}

export interface OutboxPosition {
  created: number;
  message_key: string;
}

/** A row's html and text: inline, its own body, or its newsletter's snapshot filled for its address. */
function withBody({ body_key, ...mail }: OutboxRow, bodies: Map<string, StoredBody>): OutboxMail {
  if (body_key === null) return mail;
  const body = bodies.get(body_key) as StoredBody;
  if (!body.fill) return { ...mail, html: body.html, text: body.text };
  const { html, text } = composeMail({ subject: '', html: body.html, text: body.text }, { ...body.fill, email: mail.to });
  return { ...mail, html, text };
}

/**
 * One page of a project's live outbox, newest first; `after` is the last position of the previous
 * page. Bodies in R2 are read once per distinct key for the page (a newsletter's mails share one).
 */
export async function listOutbox(
  db: D1Database,
  bucket: R2Bucket,
  serviceId: string,
  options: { to?: string; after?: OutboxPosition | null; limit: number; now: number },
): Promise<OutboxMail[]> {
  const conditions = ['service_id = ?1', liveSql('?3')];
  const params: unknown[] = [serviceId, options.limit, options.now];
  if (options.to !== undefined) {
    params.push(options.to);
    conditions.push(`mail_to = ?${params.length}`);
  }
  if (options.after) {
    params.push(options.after.created, options.after.message_key);
    conditions.push(`(created, message_key) < (?${params.length - 1}, ?${params.length})`);
  }
  const { results } = await db
    .prepare(
      `SELECT message_key, kind, mail_from AS "from", mail_to AS "to", subject, html, text, ticket_id, consume_id, send_id, created, body_key
       FROM mail_outbox WHERE ${conditions.join(' AND ')} ORDER BY created DESC, message_key DESC LIMIT ?2`,
    )
    .bind(...params)
    .all<OutboxRow>();
  const bodies = await readBodies(
    bucket,
    results.flatMap((row) => (row.body_key === null ? [] : [row.body_key])),
  );
  return results.map((row) => withBody(row, bodies));
}
