import type { Env } from '../env';
import { newsletterGroupKey } from './newsletter-groups';

/** Existence checks ticket registration runs on the names a ticket refers to. */

export async function secretExists(env: Env, serviceId: string, name: string): Promise<boolean> {
  const row = await env.DB.prepare('SELECT 1 AS found FROM secret_keys WHERE service_id = ? AND name = ?').bind(serviceId, name).first();
  return row !== null;
}

export async function templateExists(env: Env, serviceId: string, templateId: string): Promise<boolean> {
  const row = await env.DB.prepare('SELECT 1 AS found FROM mail_templates WHERE service_id = ? AND template_id = ?').bind(serviceId, templateId).first();
  return row !== null;
}

/** Whether a message is stored under the group (as an nlsd action gives it: number or text). An invalid group is false. */
export async function newsletterExists(env: Env, serviceId: string, group: string | number, messageId: string): Promise<boolean> {
  const key = newsletterGroupKey(group);
  if (key === null) return false;
  const row = await env.DB.prepare('SELECT 1 AS found FROM newsletters WHERE service_id = ? AND grp = ? AND message_id = ?')
    .bind(serviceId, key, messageId)
    .first();
  return row !== null;
}
