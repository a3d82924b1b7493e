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
import * as answer from '../../schemas/answers';
import { z } from 'zod';
import { deleted, ok, textParameter } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

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

const createDevUserRoute = route({
  operationId: 'createDevUser',
  tag: 'identity',
  guard: owner,
  body: DevUserBody,
  bodyOptional: true,
  notFound: true,
  summary: 'Local development only (DEV_IDENTITY; 404 elsewhere): create or update a user and mint an id token.',
  success: ok('The user and a fresh id token.', answer.devUserAnswer),
});

ownerResourcesRouter.post(`${PROJECT_PATH}/dev/users`, devIdentityOnly, ...createDevUserRoute.middleware, async (c) => {
  const body = await readBody(c, createDevUserRoute);
  const project = c.get('project');
  const user = await upsertDevUser(c.env, project.service_id, { ...body, user_id: body.user_id ?? crypto.randomUUID() });
  const idToken = await signDevIdToken(c.env, project.service_id, user);
  return c.json({ user_id: user.user_id, id_token: idToken });
});

// --- secret keys ---

const listSecretKeysRoute = route({
  operationId: 'listSecretKeys',
  tag: 'secrets',
  guard: owner,
  summary: 'List secret keys (names and settings, never values).',
  success: ok('Every secret key.', z.object({ list: z.array(answer.secretKeyAnswer) })),
});

ownerResourcesRouter.get(`${PROJECT_PATH}/secrets`, ...listSecretKeysRoute.middleware, async (c) =>
  c.json({ list: await listSecretKeys(c.env, c.get('project').service_id) }),
);

const getSecretKeyRoute = route({
  operationId: 'getSecretKey',
  tag: 'secrets',
  guard: owner,
  notFound: true,
  summary: 'One secret key (never its value).',
  success: ok('The secret key.', answer.secretKeyAnswer),
});

ownerResourcesRouter.get(`${PROJECT_PATH}/secrets/:name`, ...getSecretKeyRoute.middleware, async (c) => {
  const info = await getSecretKeyInfo(c.env, c.get('project').service_id, resourceName(c.req.param('name'), 'name'));
  if (!info) throw notFound('secret key');
  return c.json(info);
});

const putSecretKeyRoute = route({
  operationId: 'putSecretKey',
  tag: 'secrets',
  guard: owner,
  body: SecretKeyBody,
  summary: 'Create or replace a secret key; the value is encrypted at rest.',
  success: ok('The stored secret key (never its value).', answer.secretKeyAnswer),
});

ownerResourcesRouter.put(`${PROJECT_PATH}/secrets/:name`, ...putSecretKeyRoute.middleware, async (c) => {
  const name = resourceName(c.req.param('name'), 'name');
  const body = await readBody(c, putSecretKeyRoute);
  return c.json(await putSecretKey(c.env, c.get('project').service_id, name, body));
});

const deleteSecretKeyRoute = route({
  operationId: 'deleteSecretKey',
  tag: 'secrets',
  guard: owner,
  notFound: true,
  summary: 'Delete a secret key.',
  success: deleted,
});

ownerResourcesRouter.delete(`${PROJECT_PATH}/secrets/:name`, ...deleteSecretKeyRoute.middleware, async (c) => {
  const name = resourceName(c.req.param('name'), 'name');
  if (!(await deleteSecretKey(c.env, c.get('project').service_id, name))) throw notFound('secret key');
  return c.json({ deleted: true });
});

// --- mail templates ---

const listMailTemplatesRoute = route({
  operationId: 'listMailTemplates',
  tag: 'mail',
  guard: owner,
  summary: 'List mail templates.',
  success: ok('Every mail template.', z.object({ list: z.array(answer.mailTemplateAnswer) })),
});

ownerResourcesRouter.get(`${PROJECT_PATH}/mail-templates`, ...listMailTemplatesRoute.middleware, async (c) =>
  c.json({ list: await listMailTemplates(c.env, c.get('project').service_id) }),
);

const getMailTemplateRoute = route({
  operationId: 'getMailTemplate',
  tag: 'mail',
  guard: owner,
  notFound: true,
  summary: 'One mail template.',
  success: ok('The mail template.', answer.mailTemplateAnswer),
});

ownerResourcesRouter.get(`${PROJECT_PATH}/mail-templates/:template_id`, ...getMailTemplateRoute.middleware, async (c) => {
  const template = await loadMailTemplate(c.env, c.get('project').service_id, resourceName(c.req.param('template_id'), 'template_id'));
  if (!template) throw notFound('mail template');
  return c.json(template);
});

const putMailTemplateRoute = route({
  operationId: 'putMailTemplate',
  tag: 'mail',
  guard: owner,
  body: MailTemplateBody,
  summary: 'Create or replace a mail template (placeholders written ${name}).',
  success: ok('The stored mail template.', answer.mailTemplateAnswer),
});

ownerResourcesRouter.put(`${PROJECT_PATH}/mail-templates/:template_id`, ...putMailTemplateRoute.middleware, async (c) => {
  const templateId = resourceName(c.req.param('template_id'), 'template_id');
  const body = await readBody(c, putMailTemplateRoute);
  return c.json(await putMailTemplate(c.env, c.get('project').service_id, templateId, body));
});

const deleteMailTemplateRoute = route({
  operationId: 'deleteMailTemplate',
  tag: 'mail',
  guard: owner,
  notFound: true,
  summary: 'Delete a mail template.',
  success: deleted,
});

ownerResourcesRouter.delete(`${PROJECT_PATH}/mail-templates/:template_id`, ...deleteMailTemplateRoute.middleware, async (c) => {
  const templateId = resourceName(c.req.param('template_id'), 'template_id');
  if (!(await deleteMailTemplate(c.env, c.get('project').service_id, templateId))) throw notFound('mail template');
  return c.json({ deleted: true });
});

// --- newsletters ---

const listNewslettersRoute = route({
  operationId: 'listNewsletters',
  tag: 'mail',
  guard: owner,
  query: { group: textParameter('Only this group.') },
  summary: 'List stored newsletters.',
  success: ok('The stored newsletters.', z.object({ list: z.array(answer.newsletterAnswer) })),
});

ownerResourcesRouter.get(`${PROJECT_PATH}/newsletters`, ...listNewslettersRoute.middleware, async (c) => {
  const group = c.req.query('group');
  return c.json({ list: await listNewsletters(c.env, c.get('project').service_id, group === undefined ? undefined : requireNewsletterGroupKey(group)) });
});

const getNewsletterRoute = route({
  operationId: 'getNewsletter',
  tag: 'mail',
  guard: owner,
  notFound: true,
  summary: 'One stored newsletter.',
  success: ok('The newsletter.', answer.newsletterAnswer),
});

ownerResourcesRouter.get(`${PROJECT_PATH}/newsletters/:group/:message_id`, ...getNewsletterRoute.middleware, async (c) => {
  const key = requireNewsletterGroupKey(c.req.param('group'));
  const newsletter = await loadNewsletter(c.env, c.get('project').service_id, key, resourceName(c.req.param('message_id'), 'message_id'));
  if (!newsletter) throw notFound('newsletter');
  return c.json(newsletter);
});

const putNewsletterRoute = route({
  operationId: 'putNewsletter',
  tag: 'mail',
  guard: owner,
  body: NewsletterBody,
  summary: "Store a newsletter under a group ('public', 'authorized', 2..99 or a name).",
  success: ok('The stored newsletter.', answer.newsletterAnswer),
});

ownerResourcesRouter.put(`${PROJECT_PATH}/newsletters/:group/:message_id`, ...putNewsletterRoute.middleware, async (c) => {
  const key = requireNewsletterGroupKey(c.req.param('group'));
  const messageId = resourceName(c.req.param('message_id'), 'message_id');
  const body = await readBody(c, putNewsletterRoute);
  return c.json(await putNewsletter(c.env, c.get('project').service_id, key, messageId, body));
});

const deleteNewsletterRoute = route({
  operationId: 'deleteNewsletter',
  tag: 'mail',
  guard: owner,
  notFound: true,
  summary: 'Delete a stored newsletter.',
  success: deleted,
});

ownerResourcesRouter.delete(`${PROJECT_PATH}/newsletters/:group/:message_id`, ...deleteNewsletterRoute.middleware, async (c) => {
  const key = requireNewsletterGroupKey(c.req.param('group'));
  const messageId = resourceName(c.req.param('message_id'), 'message_id');
  if (!(await deleteNewsletter(c.env, c.get('project').service_id, key, messageId))) throw notFound('newsletter');
  return c.json({ deleted: true });
});
