/** The mail transport port: how a composed mail leaves the service. Adapters: outbox-transport.ts, http-transport.ts. */

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
}

/** Where a mail comes from; `key` makes a send idempotent (the same key is delivered once). */
export interface MailEnvelope {
  service_id: string;
  key: string;
  kind: 'mail' | 'newsletter';
  ticket_id?: string;
  consume_id?: string;
  send_id?: string;
  /** When the outbox's copy leaves (default: MAIL_LIFETIME_DAYS after it is stored); a newsletter's mails leave with their send. */
  expires?: number;
  /** R2 key of the newsletter send's snapshot, which the outbox row of a large newsletter mail points at instead of a copy. */
  shared_body_key?: string;
}

export type SendOutcome =
  | { ok: true; id: string; duplicate: boolean }
  /** permanent: sending it again cannot help (the provider refused this mail); else try again later. */
  | { ok: false; permanent: boolean; reason: string; status?: number };

export interface MailTransport {
  readonly name: 'outbox' | 'http';
  send(mail: OutgoingMail, envelope: MailEnvelope): Promise<SendOutcome>;
}
