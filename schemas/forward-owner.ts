/**
 * The owner's listing of every caller's forwarded requests (issue 15): spec 4.3's history filters with url
 * and method optional, plus the caller and a time range of creation.
 */
import * as z from 'zod';
import { FORWARD_METHODS, FORWARD_STATUSES, METHOD_RULE, queueNameRefusal, urlRefusal } from './forward-rules';
import { strictObject } from './strict';
import type { DeadLetterReason } from './dead-letters';
import type { ForwardSearchFilters } from './forward-search';

const refusing = (refusal: (value: string) => string | undefined) =>
  z.string().superRefine((value, ctx) => {
    const problem = refusal(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A time in whole milliseconds since the epoch, written in decimal digits. */
export const timeParameter = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a time in milliseconds since the epoch')
  .transform(Number);

/** Who made a request as the owner's view names them: a user id, `visitor:<name>` or `owner:<owner id>`. */
const CALLER_PATTERN = /^[^\u0000-\u001f\u007f]{1,256}$/;

/** A caller as a query parameter. */
export const callerParameter = z
  .string()
  .regex(CALLER_PATTERN, "must be a user id, 'visitor:<name>' or 'owner:<owner id>' (1 to 256 characters, no control characters)");

export const ownerForwardQuerySchema = strictObject(
  {
    url: refusing(urlRefusal).optional(),
    method: z.enum(FORWARD_METHODS, { error: METHOD_RULE }).optional(),
    caller: callerParameter.optional(),
    queue: refusing(queueNameRefusal).optional(),
    queue_exact: z.stringbool().optional(),
    queue_exclude: refusing(queueNameRefusal).optional(),
    status: z.enum(FORWARD_STATUSES).optional(),
    stream: z.stringbool().optional().describe('Only streamed requests (true) or only the others (false).'),
    from: timeParameter.optional().describe('Created at or after (ms).'),
    to: timeParameter.optional().describe('Created at or before (ms).'),
    compact: z.stringbool().optional(),
    limit: z.string().optional(),
    startKey: z.string().optional(),
  },
  {},
).superRefine((query, ctx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
});
/**
 * The owner's query as the callers' objects run it; the dead-letter listing (schemas/dead-letters.ts) asks
 * for dead letters only (any reason, or the one named).
 */
export type OwnerForwardQuery = z.output<typeof ownerForwardQuerySchema> & {
  dead_letter?: DeadLetterReason | 'any';
  /** The event inspector's search (schemas/forward-search.ts, an extension). */
  search?: ForwardSearchFilters;
};
