import { z } from 'zod';
import { createRouter } from '../app';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageOf, pageRequest } from '../wire/paging';
import { isMailAddress, normalizedAddress } from '../mail/address';
import { deleteSubscriber, listSubscribers, putSubscriber } from '../mail/subscribers';
import { newsletterGroupValue, requireNewsletterGroupKey } from '../platform/newsletter-groups';
import { loadUser } from '../platform/users';
import { readJsonBody } from '../platform/validation';

/** Owner routes to manage the subscribers of a newsletter group (the recipients of nlsd). */
export const subscribersRouter = createRouter();

const BASE = `${PROJECT_PATH}/subscribers/:group`;
const owner = guard('owner', 'Only the project owner can manage subscribers.');

export const SubscriberBody = z.strictObject({ user_id: z.uuid().nullable().optional() });

/** Addresses are kept trimmed and in lower case, so one address subscribes once. */
function address(value: string | undefined): string {
  const email = normalizedAddress(value ?? '');
  if (!isMailAddress(email)) throw invalidParameter('Invalid "email": must be one e-mail address.', { field: 'email' });
  return email;
}

const isPosition = (value: unknown): value is string => typeof value === 'string';

subscribersRouter.put(`${BASE}/:email`, owner, async (c) => {
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

subscribersRouter.delete(`${BASE}/:email`, owner, async (c) => {
  const deleted = await deleteSubscriber(c.env.DB, c.get('project').service_id, requireNewsletterGroupKey(c.req.param('group')), address(c.req.param('email')));
  if (!deleted) throw new SvcHttpError('NOT_FOUND', 'No such subscriber.', { status: 404 });
  return c.json({ deleted: true });
});

subscribersRouter.get(BASE, owner, async (c) => {
  const group = requireNewsletterGroupKey(c.req.param('group'));
  const serviceId = c.get('project').service_id;
  const page = await pageOf(pageRequest(c.req), {
    isPosition,
    rows: (after, count) => listSubscribers(c.env.DB, serviceId, group, after, count),
    position: (subscriber) => subscriber.email,
    shape: (subscriber) => subscriber,
  });
  return c.json(page);
});
