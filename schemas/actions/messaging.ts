/** mail (one custom e-mail) and nlsd (a stored newsletter to a group). Template ids and newsletters are literal. */
import { MAX_MAIL_PLACEHOLDERS } from '../limits';
import { isMailAddress } from '../mail-address';
import { childPath, invalidField } from '../paths';
import { hasReference } from '../references';
import type { MailExe, NlsdExe } from './schema';
import type { ExeScope } from './scope';
import { requireLiteral, templated } from './templated';

export function normalizeMail(exe: MailExe, scope: ExeScope, path: string): Record<string, unknown> {
  const templatePath = childPath(path, 'template');
  requireLiteral(exe.template, templatePath);
  const template = exe.template;
  scope.checks.push({
    path: templatePath,
    message: `no mail template "${template}" is stored in this project`,
    exists: (lookups) => lookups.templateExists(template),
  });

  const toPath = childPath(path, 'to');
  const to = templated(exe.to, scope.tpl, toPath);
  if (!hasReference(exe.to) && !isMailAddress(exe.to)) {
    throw invalidField(toPath, 'must be one e-mail address or a reference such as ${user[email]}');
  }
  const stored: Record<string, unknown> = { template, to };
  if (exe.placeholders !== undefined) {
    const placeholdersPath = childPath(path, 'placeholders');
    if (Object.keys(exe.placeholders).length > MAX_MAIL_PLACEHOLDERS) {
      throw invalidField(placeholdersPath, `at most ${MAX_MAIL_PLACEHOLDERS} placeholders`);
    }
    stored.placeholders = templated(exe.placeholders, scope.tpl, placeholdersPath);
  }
  return stored;
}

export function normalizeNlsd(exe: NlsdExe, scope: ExeScope, path: string): Record<string, unknown> {
  if (typeof exe.group === 'string') requireLiteral(exe.group, childPath(path, 'group'));
  const newsletterPath = childPath(path, 'newsletter');
  requireLiteral(exe.newsletter, newsletterPath);
  const group = String(exe.group);
  const newsletter = exe.newsletter;
  scope.checks.push({
    path: newsletterPath,
    message: `no newsletter "${newsletter}" is stored under group "${group}"`,
    exists: (lookups) => lookups.newsletterExists(group, newsletter),
  });
  return { group: exe.group, newsletter };
}
