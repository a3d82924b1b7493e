/**
 * The event inspector's search of the owner's forwarding history (issue 37 item 4, an extension): the
 * caller and a time range as the owner listing has them, plus the answer's status class, the error code,
 * the destination's origin, and a value in the request as the caller sent it (`where` body.<key>… or
 * headers.<name>, `equals` the value). The history keeps headers with the $CLIENT_SECRET placeholder, never a
 * Secret Key's value, so no search can find or return one.
 */
import * as z from 'zod';
import { callerParameter, timeParameter } from './forward-owner';
import { ERROR_CODE_PATTERN, MAX_EQUALS_CHARS, parseWherePath, type WherePath } from './log-search';
import { strictObject } from './strict';

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'none'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** An origin as the history's urls start: scheme, host and an optional port, nothing after. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/;

const forwardWhere = z.string().transform((raw, ctx): WherePath => {
  const path = parseWherePath(raw);
  if (typeof path === 'string' || path.root === 'query') {
    ctx.addIssue({
      code: 'custom',
      message:
        typeof path === 'string'
          ? path.replace(', headers.<name> or query.<name>', ' or headers.<name>')
          : 'a forwarded request has no query to search: body.<key>… or headers.<name>',
    });
    return z.NEVER;
  }
  return path;
});

export const forwardSearchQuerySchema = strictObject(
  {
    caller: callerParameter.optional(),
    from: timeParameter.optional(),
    to: timeParameter.optional(),
    status_class: z.enum(STATUS_CLASSES).optional(),
    error_code: z.string().regex(ERROR_CODE_PATTERN, 'must be an error code in upper case (REQUEST_FAILED)').optional(),
    destination: z.string().regex(ORIGIN, "must be an origin: 'https://host' or 'https://host:port', nothing after").optional(),
    where: forwardWhere.optional(),
    equals: z.string().max(MAX_EQUALS_CHARS, `must be at most ${MAX_EQUALS_CHARS} characters`).optional(),
    limit: z.string().optional(),
    startKey: z.string().optional(),
  },
  {},
).superRefine((query, ctx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
  if (query.where !== undefined && query.equals === undefined) ctx.addIssue({ code: 'custom', path: ['equals'], message: 'is required with "where"' });
  if (query.equals !== undefined && query.where === undefined) ctx.addIssue({ code: 'custom', path: ['where'], message: 'is required with "equals"' });
});

/** The search's own filters, as the callers' objects apply them (src/forward/forward-search.ts). */
export interface ForwardSearchFilters {
  status_class?: StatusClass;
  error_code?: string;
  destination?: string;
  value?: { where: WherePath; equals: string };
}
