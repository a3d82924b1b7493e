import type { Env } from '../env';
import type { MailContentBody } from './schemas';

export interface MailTemplate {
  template_id: string;
  subject: string;
  html: string;
  text: string;
  created: number;
  updated: number;
}

const COLUMNS = 'template_id, subject, html, text, created, updated';

/** Creates or replaces a template; html and text left out are stored empty; `created` survives a replace. */
export async function putMailTemplate(env: Env, serviceId: string, templateId: string, body: MailContentBody): Promise<MailTemplate> {
  const row = await env.DB.prepare(
    `INSERT INTO mail_templates (service_id, template_id, subject, html, text, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
     ON CONFLICT (service_id, template_id) DO UPDATE SET subject = excluded.subject, html = excluded.html, text = excluded.text, updated = excluded.updated
     RETURNING ${COLUMNS}`,
  )
    .bind(serviceId, templateId, body.subject, body.html ?? '', body.text ?? '', Date.now())
    .first<MailTemplate>();
  return row as MailTemplate;
}

export async function listMailTemplates(env: Env, serviceId: string): Promise<MailTemplate[]> {
  const { results } = await env.DB.prepare(`SELECT ${COLUMNS} FROM mail_templates WHERE service_id = ? ORDER BY template_id`)
    .bind(serviceId)
    .all<MailTemplate>();
  return results;
}

export async function loadMailTemplate(env: Env, serviceId: string, templateId: string): Promise<MailTemplate | null> {
  return env.DB.prepare(`SELECT ${COLUMNS} FROM mail_templates WHERE service_id = ? AND template_id = ?`).bind(serviceId, templateId).first<MailTemplate>();
}

export async function deleteMailTemplate(env: Env, serviceId: string, templateId: string): Promise<boolean> {
  const result = await env.DB.prepare('DELETE FROM mail_templates WHERE service_id = ? AND template_id = ?').bind(serviceId, templateId).run();
  return result.meta.changes > 0;
}
