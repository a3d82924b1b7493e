import type { Env } from '../env';
import { type NewsletterGroup, newsletterGroupValue } from './newsletter-groups';
import type { MailContentBody } from './schemas';

export interface Newsletter {
  group: NewsletterGroup;
  message_id: string;
  subject: string;
  html: string;
  text: string;
  created: number;
  updated: number;
}

interface NewsletterRow extends Omit<Newsletter, 'group'> {
  grp: string;
}

const COLUMNS = 'grp, message_id, subject, html, text, created, updated';

const toNewsletter = ({ grp, ...rest }: NewsletterRow): Newsletter => ({ group: newsletterGroupValue(grp), ...rest });

/** Creates or replaces a newsletter message under a group key (see newsletterGroupKey). */
export async function putNewsletter(env: Env, serviceId: string, groupKey: string, messageId: string, body: MailContentBody): Promise<Newsletter> {
  const row = await env.DB.prepare(
    `INSERT INTO newsletters (service_id, grp, message_id, subject, html, text, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
     ON CONFLICT (service_id, grp, message_id) DO UPDATE SET subject = excluded.subject, html = excluded.html, text = excluded.text, updated = excluded.updated
     RETURNING ${COLUMNS}`,
  )
    .bind(serviceId, groupKey, messageId, body.subject, body.html ?? '', body.text ?? '', Date.now())
    .first<NewsletterRow>();
  return toNewsletter(row as NewsletterRow);
}

/** Every newsletter of the project, or of one group key. */
export async function listNewsletters(env: Env, serviceId: string, groupKey?: string): Promise<Newsletter[]> {
  const statement =
    groupKey === undefined
      ? env.DB.prepare(`SELECT ${COLUMNS} FROM newsletters WHERE service_id = ? ORDER BY grp, message_id`).bind(serviceId)
      : env.DB.prepare(`SELECT ${COLUMNS} FROM newsletters WHERE service_id = ? AND grp = ? ORDER BY message_id`).bind(serviceId, groupKey);
  const { results } = await statement.all<NewsletterRow>();
  return results.map(toNewsletter);
}

export async function loadNewsletter(env: Env, serviceId: string, groupKey: string, messageId: string): Promise<Newsletter | null> {
  const row = await env.DB.prepare(`SELECT ${COLUMNS} FROM newsletters WHERE service_id = ? AND grp = ? AND message_id = ?`)
    .bind(serviceId, groupKey, messageId)
    .first<NewsletterRow>();
  return row ? toNewsletter(row) : null;
}

export async function deleteNewsletter(env: Env, serviceId: string, groupKey: string, messageId: string): Promise<boolean> {
  const result = await env.DB.prepare('DELETE FROM newsletters WHERE service_id = ? AND grp = ? AND message_id = ?').bind(serviceId, groupKey, messageId).run();
  return result.meta.changes > 0;
}
