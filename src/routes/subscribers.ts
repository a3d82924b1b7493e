import { Hono } from 'hono';
import { z } from 'zod';
import { type ProjectEnv, activeProject, ownerOnly } from '../http/auth';
import { SvcHttpError, invalidParameter } from '../http/errors';
import { type DatabaseResponse, decodeStartKey, encodeStartKey, pageSize } from '../http/paging';
import { isMailAddress, normalizedAddress } from '../mail/address';
import { type Subscriber, deleteSubscriber, listSubscribers, putSubscriber } from '../mail/subscribers';
import { newsletterGroupValue, requireNewsletterGroupKey } from '../platform/newsletter-groups';
import { loadUser } from '../platform/users';
import { readJsonBody } from '../platform/validation';

/** Owner routes to manage the subscribers of a newsletter group (the recipients of nlsd). */
export const subscribersRouter = new Hono<ProjectEnv>();

const BASE = '/v1/projects/:service_id/subscribers/:group';
const owner = [activeProject, ownerOnly('Only the project owner can manage subscribers.')] as const;

export const SubscriberBody = z.strictObject({ user_id: z.uuid().nullable().optional() });


/** Addresses are kept trimmed and in lower case, so one address subscribes once. */
function address(value: string | undefined): string {
  const email = normalizedAddress(value ?? '');
  if (!isMailAddress(email)) throw invalidParameter('Invalid "email": must be one e-mail address.', { field: 'email' });
  return email;
}

const isPosition = (value: unknown): value is string => typeof value === 'string';

subscribersRouter.put(`${BASE}/:email`, ...owner, async (c) => {
  const serviceId = c.get('project').service_id;
  const group = requireNewsletterGroupKey(c.req.param('group'));
  const email = address(c.req.param('email'));
  const body = await readJsonBody(c.req.raw, SubscriberBody, { optional: true });
  const userId = body.user_id ?? null;
  if (userId !== null && !(await loadUser(c.env, serviceId, userId))) {
    throw invalidParameter('Invalid "user_id": no such user in this project.', { field: 'user_id' });
  }
  const subscriber = await putSubscriber(c.env.DB, serviceId, group, email, userId, Date.now());
  return c.json({ group: newsletterGroupValue(group), ...subscriber });
});

subscribersRouter.delete(`${BASE}/:email`, ...owner, async (c) => {
  const deleted = await deleteSubscriber(c.env.DB, c.get('project').service_id, requireNewsletterGroupKey(c.req.param('group')), address(c.req.param('email')));
  if (!deleted) throw new SvcHttpError('NOT_FOUND', 'No such subscriber.', { status: 404 });
  return c.json({ deleted: true });
});

subscribersRouter.get(BASE, ...owner, async (c) => {
  const group = requireNewsletterGroupKey(c.req.param('group'));
  const limit = pageSize(c.req.query('limit'));
  const after = decodeStartKey(c.req.query('startKey'), isPosition);
  const rows = await listSubscribers(c.env.DB, c.get('project').service_id, group, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  const body: DatabaseResponse<Subscriber> = { list: page, startKey: more ? encodeStartKey(last.email) : null, endOfList: !more };
  return c.json(body);
});
