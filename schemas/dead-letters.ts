/**
 * Dead letters (issue 36 item 3, an extension): why a request sent with retry failed after its last
 * attempt, and the owner's listing query (caller, reason, a time range of failing, paging).
 */
import * as z from 'zod';
import { callerParameter, timeParameter } from './forward-owner';
import { strictObject } from './strict';

export const DEAD_LETTER_REASONS = ['retry_window_ended', 'error_status', 'timeout', 'request_failed'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

export const deadLetterQuerySchema = strictObject(
  {
    caller: callerParameter.optional(),
    reason: z.enum(DEAD_LETTER_REASONS).optional(),
    from: timeParameter.optional(),
    to: timeParameter.optional(),
    limit: z.string().optional(),
    startKey: z.string().optional(),
  },
  {},
).superRefine((query, ctx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
});
