import { Hono } from 'hono';
import { type ProjectEnv, activeProject, ownerOnly } from '../http/auth';
import { SvcHttpError } from '../http/errors';
import { type DatabaseResponse, decodeStartKey, encodeStartKey, pageSize } from '../http/paging';
import { type OutboxMail, type OutboxPosition, listOutbox } from '../mail/outbox-transport';
import { listBatches, loadSend } from '../mail/newsletter-sends';
import { newsletterGroupValue } from '../platform/newsletter-groups';

/**
 * Owner routes of mail delivery: the local outbox (GET /mail-outbox, what the default transport
 * "sent") and the progress of one newsletter send (GET /newsletter-sends/{send_id}).
 */
export const mailOutboxRouter = new Hono<ProjectEnv>();

const BASE = '/v1/projects/:service_id';
const owner = [activeProject, ownerOnly('Only the project owner can read the mail outbox.')] as const;

const isPosition = (value: unknown): value is OutboxPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as OutboxPosition).created === 'number' &&
  typeof (value as OutboxPosition).message_key === 'string';

mailOutboxRouter.get(`${BASE}/mail-outbox`, ...owner, async (c) => {
  const limit = pageSize(c.req.query('limit'));
  const after = decodeStartKey(c.req.query('startKey'), isPosition);
  const to = c.req.query('to') || undefined;
  // One row more than the page says whether another page follows.
  const rows = await listOutbox(c.env.DB, c.get('project').service_id, { to, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  const body: DatabaseResponse<OutboxMail> = {
    list: page,
    startKey: more ? encodeStartKey({ created: last.created, message_key: last.message_key }) : null,
    endOfList: !more,
  };
  return c.json(body);
});

mailOutboxRouter.get(`${BASE}/newsletter-sends/:send_id`, ...owner, async (c) => {
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
