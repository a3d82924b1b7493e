import { TICKET_ID_PATTERN } from '../../schemas/ticket';
import { SvcHttpError, invalidParameter } from '../wire/errors';

export const ticketNotFound = () => new SvcHttpError('TICKET_NOT_FOUND', 'The ticket does not exist.', { status: 404 });

/** The ticket id of the path; refused before an object is made for a name no ticket can have. */
export function ticketIdOf(param: string | undefined): string {
  const ticketId = param ?? '';
  if (!TICKET_ID_PATTERN.test(ticketId)) throw invalidParameter('Invalid "ticket_id": not a ticket id.', { field: 'ticket_id' });
  return ticketId;
}
