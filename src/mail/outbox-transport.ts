import type { MailEnvelope, MailTransport, OutgoingMail, SendOutcome } from './transport';

/**
 * The local adapter (the default): each mail is a row of the D1 outbox, which the owner lists
 * (GET /v1/projects/{id}/mail-outbox). A key already in the outbox is not stored again.
 */
export class OutboxTransport implements MailTransport {
  readonly name = 'outbox';

  constructor(
    private readonly db: D1Database,
    private readonly now: () => number = Date.now,
  ) {}

  async send(mail: OutgoingMail, envelope: MailEnvelope): Promise<SendOutcome> {
    const result = await this.db
      .prepare(
        `INSERT INTO mail_outbox (service_id, message_key, kind, mail_from, mail_to, subject, html, text, ticket_id, consume_id, send_id, created)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .bind(
        envelope.service_id,
        envelope.key,
        envelope.kind,
        mail.from,
        mail.to,
        mail.subject,
        mail.html,
        mail.text,
        envelope.ticket_id ?? null,
        envelope.consume_id ?? null,
        envelope.send_id ?? null,
        this.now(),
      )
      .run();
    return { ok: true, id: envelope.key, duplicate: result.meta.changes === 0 };
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

export interface OutboxPosition {
  created: number;
  message_key: string;
}

/** One page of a project's outbox, newest first; `after` is the last position of the previous page. */
export async function listOutbox(
  db: D1Database,
  serviceId: string,
  options: { to?: string; after?: OutboxPosition | null; limit: number },
): Promise<OutboxMail[]> {
  const conditions = ['service_id = ?1'];
  const params: unknown[] = [serviceId, options.limit];
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
      `SELECT message_key, kind, mail_from AS "from", mail_to AS "to", subject, html, text, ticket_id, consume_id, send_id, created
       FROM mail_outbox WHERE ${conditions.join(' AND ')} ORDER BY created DESC, message_key DESC LIMIT ?2`,
    )
    .bind(...params)
    .all<OutboxMail>();
  return results;
}
