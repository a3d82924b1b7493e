import { TICKET_ID_PATTERN } from '../../schemas/ticket';
import { SvcHttpError, invalidParameter } from '../wire/errors';

export const ticketNotFound = () => new SvcHttpError('TICKET_NOT_FOUND', 'The ticket does not exist.', { status: 404 });

/** The ticket id of the path; refused before an object is made for a name no ticket can have. */
export function ticketIdOf(param: string | undefined): string {
  const ticketId = param ?? '';
  if (!TICKET_ID_PATTERN.test(ticketId)) throw invalidParameter('Invalid "ticket_id": not a ticket id.', { field: 'ticket_id' });
  return ticketId;
}

/** A consume_id as the log writes them (base62 time + 4 random characters). */
const CONSUME_ID = /^[0-9A-Za-z]{5,32}$/;

/** The consume_id of the path. */
export function consumeIdOf(param: string | undefined): string {
  const consumeId = param ?? '';
  if (!CONSUME_ID.test(consumeId)) throw invalidParameter('Invalid "consume_id": not a consume id.', { field: 'consume_id' });
  return consumeId;
}
