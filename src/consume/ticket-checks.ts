import type { StoredTicket } from '../../schemas/ticket-types';
import type { ErrorCode } from '../wire/errors';

export interface TicketState {
  ticket: StoredTicket;
  /** null = unlimited */
  remaining: number | null;
  /** How many times this signed-in user consumed it; undefined for anonymous callers. */
  userUsed?: number;
  issuer: boolean;
  authError?: string;
}

export interface CheckFailure {
  code: ErrorCode;
  message: string;
}

/**
 * The ticket checks of spec 1.2 after the ticket was read, in order: expiry, count, per-user limit,
 * issuer check, token belongs to this project. Pure: the caller holds the state.
 */
export function checkTicket(state: TicketState, now: number): CheckFailure | null {
  const { ticket } = state;
  if (ticket.time_to_live !== undefined && ticket.time_to_live <= now) {
    return { code: 'TICKET_EXPIRED', message: 'The ticket has expired.' };
  }
  if (state.remaining !== null && state.remaining <= 0) {
    return { code: 'TICKET_EXHAUSTED', message: 'The ticket has no consumptions left.' };
  }
  if (ticket.limit_per_user !== undefined && state.userUsed !== undefined && state.userUsed >= ticket.limit_per_user) {
    return { code: 'USER_LIMIT_REACHED', message: 'You have reached the limit of consumptions of this ticket.' };
  }
  if (state.issuer) {
    return { code: 'ISSUER_CANNOT_CONSUME', message: "The ticket's issuer cannot consume it; use the dry run to test it." };
  }
  if (state.authError !== undefined) {
    return { code: 'AUTH_REQUIRED', message: state.authError };
  }
  return null;
}
