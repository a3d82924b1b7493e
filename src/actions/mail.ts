import { OUTBOUND_CALL_MS } from '../limits';
import { isMailAddress } from '../mail/address';
import { composeMail, senderOf } from '../mail/compose';
import { serviceName } from '../mail/project-name';
import { selectTransport } from '../mail/select-transport';
import { mailSettings } from '../mail/settings';
import { countMail } from '../mail/usage';
import { loadMailTemplate } from '../platform/mail-templates';
import { ActionError } from '../wire/errors';
import type { ActionModule, ActionResult } from './types';

export const MAIL_SENT = 'SUCCESS: The e-mail has been sent.';

/** Rendered placeholders must be text, numbers or booleans; they are filled in as text. */
function placeholderValues(rendered: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries((rendered ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new ActionError('ACTION_FAILED', `placeholders.${name} must be text, a number or a boolean.`, { field: `placeholders.${name}` });
    }
    values[name] = String(value);
  }
  return values;
}

/**
 * mail: sends a stored template to one address (spec 2.4). `to` and `placeholders` are templated;
 * service_name (the project's name) and email (the address) are filled by default and may be
 * overwritten. The send is keyed by consumption and action path, so a retry of the action never
 * delivers the mail twice. A mail that went out but could not be counted answers SUCCESS with a warning.
 */
export const mailAction: ActionModule = {
  async run(run): Promise<ActionResult> {
    const { env, serviceId, deadline, now } = run.services;
    const exe = run.exe as { template: string; to: string; placeholders?: Record<string, unknown> };
    try {
      const to = run.render(exe.to);
      const given = placeholderValues(exe.placeholders === undefined ? {} : run.render(exe.placeholders));
      if (!isMailAddress(to)) {
        throw new ActionError('ACTION_FAILED', '"to" is not one e-mail address once its references are filled in.', { field: 'to' });
      }
      const sent = { template: exe.template, to };
      const template = await loadMailTemplate(env, serviceId, exe.template);
      if (!template) throw new ActionError('ACTION_FAILED', `The mail template "${exe.template}" is no longer stored.`, { template: exe.template });

      const name = await serviceName(env.DB, serviceId);
      const content = composeMail(template, { service_name: name, email: to, ...given });
      const transport = selectTransport(env, { now, timeoutMs: () => Math.min(OUTBOUND_CALL_MS, deadline - now()) });
      const outcome = await transport.send(
        { from: senderOf(name, mailSettings(env).fromAddress), to, ...content },
        {
          service_id: serviceId,
          key: `mail:${run.ctx.ticket.consume_id}:${run.path}`,
          kind: 'mail',
          ticket_id: run.ctx.ticket.id,
          consume_id: run.ctx.ticket.consume_id,
        },
      );
      if (!outcome.ok) {
        const detail = { reason: outcome.reason, transport: transport.name, ...(outcome.status !== undefined ? { status: outcome.status } : {}) };
        return { ok: false, failure: { code: 'ACTION_FAILED', message: 'The e-mail could not be sent.', detail }, row: { sent } };
      }
      const row: Record<string, unknown> = { sent: { ...sent, transport: transport.name, message_id: outcome.id } };
      if (!outcome.duplicate) {
        try {
          await countMail(env.DB, serviceId, now(), { mails: 1 });
        } catch {
          row.warning = 'The e-mail was sent but could not be counted.';
        }
      }
      return { ok: true, answer: MAIL_SENT, row };
    } catch (err) {
      if (err instanceof ActionError) return { ok: false, failure: err.toFailure() };
      throw err;
    }
  },
};
