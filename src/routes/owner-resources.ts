import { createMiddleware } from 'hono/factory';
import { type AppEnv, createRouter } from '../app';
import { isTrue } from '../env';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { signDevIdToken } from '../platform/identity';
import { deleteMailTemplate, listMailTemplates, loadMailTemplate, putMailTemplate } from '../platform/mail-templates';
import { requireNewsletterGroupKey } from '../platform/newsletter-groups';
import { deleteNewsletter, listNewsletters, loadNewsletter, putNewsletter } from '../platform/newsletters';
import { DevUserBody, MailTemplateBody, NewsletterBody, RESOURCE_NAME_PATTERN, SecretKeyBody } from '../platform/schemas';
import { deleteSecretKey, getSecretKeyInfo, listSecretKeys, putSecretKey } from '../platform/secrets';
import { upsertDevUser } from '../platform/users';
import { readJsonBody } from '../platform/validation';

/** Owner routes under /v1/projects/{service_id}/: dev users, secret keys, mail templates, newsletters. */
export const ownerResourcesRouter = createRouter();

const owner = guard('owner', 'Only the project owner can manage this project.');

const notFound = (what: string) => new SvcHttpError('NOT_FOUND', `No such ${what}.`, { status: 404 });

/** A path segment naming a resource: 1 to 64 letters, digits, _ or -. */
function resourceName(value: string | undefined, field: string): string {
  if (value === undefined || !RESOURCE_NAME_PATTERN.test(value)) {
    throw invalidParameter(`Invalid "${field}": must be 1 to 64 letters, digits, _ or -.`, { field });
  }
  return value;
}

// --- development users of the built-in issuer ---

/** The minting route exists only in local development; elsewhere it is an unknown route. */
const devIdentityOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (!isTrue(c.env.DEV_IDENTITY)) throw new SvcHttpError('NOT_FOUND', 'No such route.', { status: 404 });
  await next();
});

ownerResourcesRouter.post(`${PROJECT_PATH}/dev/users`, devIdentityOnly, owner, async (c) => {
  const body = await readJsonBody(c.req.raw, DevUserBody, { optional: true });
  const project = c.get('project');
  const user = await upsertDevUser(c.env, project.service_id, { ...body, user_id: body.user_id ?? crypto.randomUUID() });
  const idToken = await signDevIdToken(c.env, project.service_id, user);
  return c.json({ user_id: user.user_id, id_token: idToken });
});

// --- secret keys ---

ownerResourcesRouter.get(`${PROJECT_PATH}/secrets`, owner, async (c) => c.json({ list: await listSecretKeys(c.env, c.get('project').service_id) }));

ownerResourcesRouter.get(`${PROJECT_PATH}/secrets/:name`, owner, async (c) => {
  const info = await getSecretKeyInfo(c.env, c.get('project').service_id, resourceName(c.req.param('name'), 'name'));
  if (!info) throw notFound('secret key');
  return c.json(info);
});

ownerResourcesRouter.put(`${PROJECT_PATH}/secrets/:name`, owner, async (c) => {
  const name = resourceName(c.req.param('name'), 'name');
  const body = await readJsonBody(c.req.raw, SecretKeyBody);
  return c.json(await putSecretKey(c.env, c.get('project').service_id, name, body));
});

ownerResourcesRouter.delete(`${PROJECT_PATH}/secrets/:name`, owner, async (c) => {
  const name = resourceName(c.req.param('name'), 'name');
  if (!(await deleteSecretKey(c.env, c.get('project').service_id, name))) throw notFound('secret key');
  return c.json({ deleted: true });
});

// --- mail templates ---

ownerResourcesRouter.get(`${PROJECT_PATH}/mail-templates`, owner, async (c) => c.json({ list: await listMailTemplates(c.env, c.get('project').service_id) }));

ownerResourcesRouter.get(`${PROJECT_PATH}/mail-templates/:template_id`, owner, async (c) => {
  const template = await loadMailTemplate(c.env, c.get('project').service_id, resourceName(c.req.param('template_id'), 'template_id'));
  if (!template) throw notFound('mail template');
  return c.json(template);
});

ownerResourcesRouter.put(`${PROJECT_PATH}/mail-templates/:template_id`, owner, async (c) => {
  const templateId = resourceName(c.req.param('template_id'), 'template_id');
  const body = await readJsonBody(c.req.raw, MailTemplateBody);
  return c.json(await putMailTemplate(c.env, c.get('project').service_id, templateId, body));
});

ownerResourcesRouter.delete(`${PROJECT_PATH}/mail-templates/:template_id`, owner, async (c) => {
  const templateId = resourceName(c.req.param('template_id'), 'template_id');
  if (!(await deleteMailTemplate(c.env, c.get('project').service_id, templateId))) throw notFound('mail template');
  return c.json({ deleted: true });
});

// --- newsletters ---

ownerResourcesRouter.get(`${PROJECT_PATH}/newsletters`, owner, async (c) => {
  const group = c.req.query('group');
  return c.json({ list: await listNewsletters(c.env, c.get('project').service_id, group === undefined ? undefined : requireNewsletterGroupKey(group)) });
});

ownerResourcesRouter.get(`${PROJECT_PATH}/newsletters/:group/:message_id`, owner, async (c) => {
  const key = requireNewsletterGroupKey(c.req.param('group'));
  const newsletter = await loadNewsletter(c.env, c.get('project').service_id, key, resourceName(c.req.param('message_id'), 'message_id'));
  if (!newsletter) throw notFound('newsletter');
  return c.json(newsletter);
});

ownerResourcesRouter.put(`${PROJECT_PATH}/newsletters/:group/:message_id`, owner, async (c) => {
  const key = requireNewsletterGroupKey(c.req.param('group'));
  const messageId = resourceName(c.req.param('message_id'), 'message_id');
  const body = await readJsonBody(c.req.raw, NewsletterBody);
  return c.json(await putNewsletter(c.env, c.get('project').service_id, key, messageId, body));
});

ownerResourcesRouter.delete(`${PROJECT_PATH}/newsletters/:group/:message_id`, owner, async (c) => {
  const key = requireNewsletterGroupKey(c.req.param('group'));
  const messageId = resourceName(c.req.param('message_id'), 'message_id');
  if (!(await deleteNewsletter(c.env, c.get('project').service_id, key, messageId))) throw notFound('newsletter');
  return c.json({ deleted: true });
});
