import ipaddr from 'ipaddr.js';
import * as z from 'zod';
import { strictObject } from './strict';

/** A header name as HTTP allows it (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value never carries a line break (it would end the header). */
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * The sample request of an owner's dry run (POST …/tickets/{ticket_id}/check): the condition is judged
 * as if this request had consumed the ticket. `body` is the raw body text when a string, else sent as
 * its JSON text (the signature is computed over exactly those bytes).
 */
export const ticketCheckSchema = strictObject(
  {
    method: z.enum(['GET', 'POST'], { error: "must be 'GET' or 'POST'" }).optional(),
    headers: z
      .record(
        z.string().regex(HEADER_NAME, { error: 'not a header name' }),
        z.string({ error: 'a header value is a string' }).regex(HEADER_VALUE, { error: 'a header value has no line break' }),
      )
      .optional()
      .describe('Request headers (names are case-insensitive).'),
    body: z.unknown().optional().describe('A string is the raw body text; any other JSON value is sent as its JSON text. Not with GET.'),
    query: z
      .record(z.string(), z.union([z.string(), z.array(z.string())], { error: 'a query value is a string or a list of strings' }))
      .optional()
      .describe('Query string values; a list repeats the name.'),
    user_id: z.string().min(1).max(256).optional().describe('Judge the request as consumed by this project user on the signed-in route (/tpa).'),
    ip: z
      .string()
      .refine((value) => ipaddr.isValid(value), { error: 'not an IP address' })
      .optional()
      .describe('The caller IP address (default 127.0.0.1).'),
  },
  {},
);

export type TicketCheckSample = z.infer<typeof ticketCheckSchema>;
