import { z } from 'zod';
import { createRouter } from '../app';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageOf, pageRequest } from '../wire/paging';
import { isMailAddress, normalizedAddress } from '../mail/address';
import { deleteSubscriber, listSubscribers, putSubscriber } from '../mail/subscribers';
import { newsletterGroupValue, requireNewsletterGroupKey } from '../platform/newsletter-groups';
import { loadUser } from '../platform/users';
import * as answer from '../../schemas/answers';
import { PAGING, deleted, ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

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

const putSubscriberRoute = route({
  operationId: 'putSubscriber',
  tag: 'mail',
  guard: owner,
  body: SubscriberBody,
  bodyOptional: true,
  summary: 'Subscribe an address to a group.',
  success: ok('The subscription.', answer.subscribedAnswer),
});

subscribersRouter.put(`${BASE}/:email`, ...putSubscriberRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const group = requireNewsletterGroupKey(c.req.param('group'));
  const email = address(c.req.param('email'));
  const body = await readBody(c, putSubscriberRoute);
  const userId = body.user_id ?? null;
  if (userId !== null && !(await loadUser(c.env, serviceId, userId))) {
    throw invalidParameter('Invalid "user_id": no such user in this project.', { field: 'user_id' });
  }
  const subscriber = await putSubscriber(c.env.DB, serviceId, group, email, userId, Date.now());
  return c.json({ group: newsletterGroupValue(group), ...subscriber });
});

const deleteSubscriberRoute = route({
  operationId: 'deleteSubscriber',
  tag: 'mail',
  guard: owner,
  notFound: true,
  summary: 'Unsubscribe an address.',
  success: deleted,
});

subscribersRouter.delete(`${BASE}/:email`, ...deleteSubscriberRoute.middleware, async (c) => {
  const deleted = await deleteSubscriber(c.env.DB, c.get('project').service_id, requireNewsletterGroupKey(c.req.param('group')), address(c.req.param('email')));
  if (!deleted) throw new SvcHttpError('NOT_FOUND', 'No such subscriber.', { status: 404 });
  return c.json({ deleted: true });
});

const listSubscribersRoute = route({
  operationId: 'listSubscribers',
  tag: 'mail',
  guard: owner,
  query: PAGING,
  summary: 'List the subscribers of a newsletter group.',
  success: ok('A page of subscribers.', answer.listingOf(answer.subscriberAnswer)),
});

subscribersRouter.get(BASE, ...listSubscribersRoute.middleware, async (c) => {
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
