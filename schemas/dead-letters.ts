/**
 * Dead letters (issue 36 item 3, an extension): why a request sent with retry failed after its last
 * attempt, and the owner's listing query (caller, reason, a time range of failing, paging).
 */
import * as z from 'zod';
import { CALLER_PATTERN } from './forward-owner';
import { strictObject } from './strict';

export const DEAD_LETTER_REASONS = ['retry_window_ended', 'error_status', 'timeout', 'request_failed'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** A time in whole milliseconds since the epoch, written in decimal digits. */
const time = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a time in milliseconds since the epoch')
  .transform(Number);

export const deadLetterQuerySchema = strictObject(
  {
    caller: z
      .string()
      .regex(CALLER_PATTERN, "must be a user id, 'visitor:<name>' or 'owner:<owner id>' (1 to 256 characters, no control characters)")
      .optional(),
    reason: z.enum(DEAD_LETTER_REASONS).optional(),
    from: time.optional(),
    to: time.optional(),
    limit: z.string().optional(),
    startKey: z.string().optional(),
  },
  {},
).superRefine((query, ctx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
});
