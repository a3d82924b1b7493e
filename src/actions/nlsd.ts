import { senderOf } from '../mail/compose';
import { firstPlanMessage } from '../mail/newsletter-jobs';
import { newsletterSendId } from '../mail/newsletter-batches';
import { createSend } from '../mail/newsletter-sends';
import { serviceName } from '../mail/project-name';
import { mailSettings } from '../mail/settings';
import { newsletterGroupKey } from '../platform/newsletter-groups';
import { loadNewsletter } from '../platform/newsletters';
import { ActionError } from '../wire/errors';
import type { ActionModule, ActionResult } from './types';

export const NEWSLETTER_QUEUED = 'SUCCESS: The newsletter is being sent to the subscribers of the group.';

/**
 * nlsd: sends a stored newsletter to every subscriber of a group (spec 2.4). The action stores the
 * send (a snapshot of the newsletter) and puts its first planning step on the work queue, then
 * answers at once; batches of subscribers go out through the queue (src/mail/newsletter-jobs.ts).
 */
export const nlsdAction: ActionModule = {
  async run(run): Promise<ActionResult> {
    const { env, serviceId, now } = run.services;
    const exe = run.exe as { group: string | number; newsletter: string };
    try {
      const groupKey = newsletterGroupKey(exe.group);
      if (groupKey === null) throw new ActionError('ACTION_FAILED', `"${exe.group}" is not a newsletter group.`, { field: 'group' });
      const newsletter = await loadNewsletter(env, serviceId, groupKey, exe.newsletter);
      if (!newsletter) {
        throw new ActionError('ACTION_FAILED', `The newsletter "${exe.newsletter}" is no longer stored under group "${groupKey}".`, {
          group: exe.group,
          newsletter: exe.newsletter,
        });
      }
      const name = await serviceName(env.DB, serviceId);
      const sendId = await newsletterSendId(run.ctx.ticket.consume_id, run.path);
      await createSend(
        env.DB,
        serviceId,
        {
          send_id: sendId,
          group_key: groupKey,
          message_id: newsletter.message_id,
          from: senderOf(name, mailSettings(env).fromAddress),
          subject: newsletter.subject,
          html: newsletter.html,
          text: newsletter.text,
          service_name: name,
          ticket_id: run.ctx.ticket.id,
          consume_id: run.ctx.ticket.consume_id,
          action_path: run.path,
          created: now(),
        },
        env.BODIES,
      );
      const sent = { group: exe.group, newsletter: exe.newsletter, send_id: sendId };
      try {
        await env.WORK_QUEUE.send(firstPlanMessage(serviceId, sendId));
      } catch {
        return {
          ok: false,
          failure: { code: 'ACTION_FAILED', message: 'The newsletter could not be queued for sending.', detail: { send_id: sendId } },
          row: { sent },
        };
      }
      return { ok: true, answer: NEWSLETTER_QUEUED, row: { sent } };
    } catch (err) {
      if (err instanceof ActionError) return { ok: false, failure: err.toFailure() };
      throw err;
    }
  },
};
