/**
 * Dead letters (issue 36 item 3, an extension): why a request sent with retry failed after its last
 * attempt, and the owner's listing queries (caller, reason, a time range, paging), the project's and a ticket's.
 */
import * as z from 'zod';
import { callerParameter, timeParameter } from './forward-owner';
import { strictObject } from './strict';

export const DEAD_LETTER_REASONS = ['retry_window_ended', 'error_status', 'timeout', 'request_failed'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

const rangeShape = {
  reason: z.enum(DEAD_LETTER_REASONS).optional(),
  from: timeParameter.optional(),
  to: timeParameter.optional(),
  limit: z.string().optional(),
  startKey: z.string().optional(),
};

const toAfterFrom = (query: { from?: number; to?: number }, ctx: z.RefinementCtx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
};

/** The project's forwarding dead letters: by caller, reason and time of making. */
export const deadLetterQuerySchema = strictObject({ caller: callerParameter.optional(), ...rangeShape }, {}).superRefine(toAfterFrom);

/** A ticket's dead letters: by reason and time of failing. */
export const ticketDeadLetterQuerySchema = strictObject(rangeShape, {}).superRefine(toAfterFrom);
