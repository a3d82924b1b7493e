import { createRouter } from '../app';
import { SvcHttpError } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageOf, pageRequest } from '../wire/paging';
import { type OutboxPosition, listOutbox } from '../mail/outbox-transport';
import { listBatches, loadSend } from '../mail/newsletter-sends';
import { newsletterGroupValue } from '../platform/newsletter-groups';
import * as answer from '../../schemas/answers';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';

/**
 * Owner routes of mail delivery: the local outbox (GET /mail-outbox, what the default transport
 * "sent") and the progress of one newsletter send (GET /newsletter-sends/{send_id}).
 */
export const mailOutboxRouter = createRouter();

const owner = guard('owner', 'Only the project owner can read the mail outbox.');

const isPosition = (value: unknown): value is OutboxPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as OutboxPosition).created === 'number' &&
  typeof (value as OutboxPosition).message_key === 'string';

const listMailOutboxRoute = route({
  operationId: 'listMailOutbox',
  tag: 'mail',
  guard: owner,
  query: { ...PAGING, to: textParameter('Only mail to this address.') },
  summary: 'The local mail outbox (mail sent while no HTTP provider is configured).',
  success: ok('A page of mail, newest first.', answer.listingOf(answer.outboxMailAnswer)),
});

mailOutboxRouter.get(`${PROJECT_PATH}/mail-outbox`, ...listMailOutboxRoute.middleware, async (c) => {
  const to = c.req.query('to') || undefined;
  const serviceId = c.get('project').service_id;
  const page = await pageOf(pageRequest(c.req), {
    isPosition,
    rows: (after, count) => listOutbox(c.env.DB, c.env.BODIES, serviceId, { to, after, limit: count, now: Date.now() }),
    position: (mail): OutboxPosition => ({ created: mail.created, message_key: mail.message_key }),
    shape: (mail) => mail,
  });
  return c.json(page);
});

const getNewsletterSendRoute = route({
  operationId: 'getNewsletterSend',
  tag: 'mail',
  guard: owner,
  notFound: true,
  summary: 'Progress of one newsletter send (nlsd).',
  success: ok('The send and its batches.', answer.newsletterSendAnswer),
});

mailOutboxRouter.get(`${PROJECT_PATH}/newsletter-sends/:send_id`, ...getNewsletterSendRoute.middleware, async (c) => {
  const serviceId = c.get('project').service_id;
  const send = await loadSend(c.env.DB, serviceId, c.req.param('send_id'));
  if (!send) throw new SvcHttpError('NOT_FOUND', 'No such newsletter send.', { status: 404 });
  const batches = await listBatches(c.env.DB, serviceId, send.send_id);
  const sent = batches.filter((batch) => batch.status === 'sent');
  const done = send.planned_batches !== null && sent.length >= send.planned_batches;
  return c.json({
    send_id: send.send_id,
    group: newsletterGroupValue(send.group_key),
    newsletter: send.message_id,
    ticket_id: send.ticket_id,
    consume_id: send.consume_id,
    status: done ? 'sent' : 'sending',
    planned_batches: send.planned_batches,
    delivered: sent.reduce((sum, batch) => sum + batch.delivered, 0),
    refused: sent.reduce((sum, batch) => sum + batch.refused, 0),
    ...(send.warning ? { warning: send.warning } : {}),
    batches,
    created: send.created,
    updated: send.updated,
  });
});
