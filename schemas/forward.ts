/**
 * Request forwarding on the wire (spec 2.8, 4.3): the zod schemas the Worker validates a dispatch and a
 * history query with. The rules they apply, the limits and the answers are in forward-rules.ts, which
 * the client imports too.
 */
import * as z from 'zod';
import { checked, type Checked } from './field-issue';
import {
  BODILESS_FORWARD_METHODS,
  FORWARD_METHODS,
  FORWARD_STATUSES,
  faithfulJson,
  headerRefusal,
  LOSSY_JSON_RULE,
  MAX_EXPIRES_SECONDS,
  MAX_FINALIZE_DATA_BYTES,
  MAX_FORWARD_DATA_BYTES,
  MAX_FORWARD_HEADERS,
  MAX_MULTIPART_CHARS,
  MAX_RETRY_WITHIN_SECONDS,
  METHOD_RULE,
  queueNameRefusal,
  urlRefusal,
} from './forward-rules';
import { parseOrRefuse } from './issues';
import { strictObject } from './strict';
import { utf8Over } from './utf8';

const methodSchema = z.enum(FORWARD_METHODS, { error: METHOD_RULE });

const headersSchema = z
  .record(z.string(), z.unknown())
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_FORWARD_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_FORWARD_HEADERS} headers` });
    for (const name of names) {
      const refusal = headerRefusal(name, headers[name]);
      if (refusal) ctx.addIssue({ code: 'custom', path: [name], message: refusal });
    }
  })
  .transform((headers) => headers as Record<string, string>);

const queueName = z.string().superRefine((name, ctx) => {
  const refusal = queueNameRefusal(name);
  if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
});

const svcHeadersSchema = z.union([z.boolean(), strictObject({ user: z.boolean().optional(), service: z.boolean().optional() }, {})], {
  error: 'must be true, false or { user?, service? }',
});

const multipartSchema = strictObject(
  {
    content_type: z.string().regex(/^multipart\/form-data;\s*boundary=[^\r\n\0]{1,200}$/i, 'must be multipart/form-data with a boundary'),
    base64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64 text'),
  },
  {},
);

/** What is wrong with data as JSON of at most maxBytes; undefined when nothing. */
function dataRefusal(data: unknown, maxBytes: number): string | undefined {
  if (data === undefined) return undefined;
  const text = faithfulJson(data);
  if (text === undefined) return LOSSY_JSON_RULE;
  return utf8Over(text, maxBytes) ? `must be at most ${maxBytes} bytes as JSON` : undefined;
}

const RETRY_RULE = `must be true, false or { within: whole seconds from 1 to ${MAX_RETRY_WITHIN_SECONDS} }`;

/** How long (seconds from its creation) a request may wait out back-pressure; undefined when it did not ask. */
export function retryWithinOf(retry: ForwardDispatch['retry']): number | undefined {
  if (retry === undefined || retry === false) return undefined;
  return retry === true ? MAX_RETRY_WITHIN_SECONDS : retry.within;
}

/** The body of a dispatch (POST /v1/projects/{service_id}/forward). */
export const forwardDispatchSchema = strictObject(
  {
    url: z.string().superRefine((url, ctx) => {
      const refusal = urlRefusal(url);
      if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
    }),
    method: methodSchema.default('POST'),
    headers: headersSchema.optional(),
    // The body was parsed from JSON text, so its values are JSON already: not walked again here.
    data: z.unknown().optional().describe('The body: JSON, unless the content-type header asks for a form (form-encoded) or text (a string as it is).'),
    params: z
      .record(z.string(), z.unknown())
      .superRefine((params, ctx) => {
        if (faithfulJson(params) === undefined) ctx.addIssue({ code: 'custom', message: LOSSY_JSON_RULE });
      })
      .optional()
      .describe('Query parameters; an array repeats the name, other non-text values go as compact JSON.'),
    secretName: z.string().min(1).max(64).optional(),
    clientSecretName: z.string().min(1).max(64).optional().describe('The older name of secretName; secretName wins.'),
    queue: queueName.optional(),
    poll: z.number().min(0, 'must not be negative').optional().describe('The client polls when > 0; a queue is generated when none is named.'),
    expires: z.int('must be a whole number of seconds').min(1).max(MAX_EXPIRES_SECONDS).optional(),
    svcHeaders: svcHeadersSchema.optional(),
    multipart: multipartSchema.optional().describe("The form's own bytes, base64; refused together with data."),
    check: z.boolean().optional().describe('Answer what would be sent and the verdicts, sending nothing.'),
    stream: z
      .boolean()
      .optional()
      .describe('Relay the answer piece by piece into the chunk store (a queue is generated when none is named); never sent to the destination.'),
    realtime: z.boolean().optional().describe("With stream: also push each stored piece to the realtime room named by the reply's realtime_group."),
    retry: z
      .union(
        [
          z.boolean(),
          strictObject(
            {
              within: z
                .int('must be a whole number of seconds')
                .min(1, 'must be at least 1 second')
                .max(MAX_RETRY_WITHIN_SECONDS, `must be at most ${MAX_RETRY_WITHIN_SECONDS} seconds (a day)`),
            },
            {},
          ),
        ],
        { error: RETRY_RULE },
      )
      .optional()
      .describe(
        'Extension: a queued request answered 429 or 503 waits (Retry-After, the X-RateLimit-Reset headers, else a backoff) and is sent again, ' +
          `its queue waiting behind it, until \`within\` seconds after it was made (default and most ${MAX_RETRY_WITHIN_SECONDS}).`,
      ),
  },
  {},
).superRefine((body, ctx) => {
  const dataProblem = dataRefusal(body.data, MAX_FORWARD_DATA_BYTES);
  if (dataProblem) ctx.addIssue({ code: 'custom', path: ['data'], message: dataProblem });
  if (body.data !== undefined && BODILESS_FORWARD_METHODS.has(body.method)) {
    ctx.addIssue({ code: 'custom', path: ['data'], message: `a ${body.method} request carries no body: send params` });
  }
  if (body.retry !== undefined && body.retry !== false && body.queue === undefined && !((body.poll ?? 0) > 0) && !body.stream) {
    ctx.addIssue({
      code: 'custom',
      path: ['retry'],
      message: 'needs a queued request (queue, poll or stream): a direct request has 10 seconds and cannot wait',
    });
  }
  if (body.multipart && body.data !== undefined) ctx.addIssue({ code: 'custom', path: ['multipart'], message: 'cannot be combined with data' });
  if (body.multipart && BODILESS_FORWARD_METHODS.has(body.method)) {
    ctx.addIssue({ code: 'custom', path: ['multipart'], message: `a ${body.method} request carries no body` });
  }
  if (body.multipart && body.multipart.base64.length > MAX_MULTIPART_CHARS) {
    ctx.addIssue({
      code: 'custom',
      path: ['multipart'],
      message: `the encoded body is ${body.multipart.base64.length} characters; at most ${MAX_MULTIPART_CHARS} are relayed`,
    });
  }
});
export type ForwardDispatch = z.output<typeof forwardDispatchSchema>;

/** Validates a dispatch body: the value with defaults filled, or the first issue (field path first). */
export function checkForwardDispatch(input: unknown): Promise<Checked<ForwardDispatch>> {
  return checked(() => parseOrRefuse(forwardDispatchSchema, input));
}

/** The body of forwardRequestFinalize (POST /v1/projects/{service_id}/forward/request/finalize). */
export const forwardFinalizeSchema = strictObject(
  {
    id: z.string(),
    url: z.string().optional(),
    method: z.string().optional(),
    data: z.json().optional().describe('The version to keep, stored verbatim; absent keeps null.'),
  },
  {},
).superRefine((body, ctx) => {
  const dataProblem = dataRefusal(body.data, MAX_FINALIZE_DATA_BYTES);
  if (dataProblem) ctx.addIssue({ code: 'custom', path: ['data'], message: dataProblem });
});

/** The cursor of a poll that reads a streamed request's pieces: a whole number, 0 or more. */
export const SINCE_RULE = 'since: must be a whole number, 0 or more.';
export const sinceOf = (text: string): number | undefined => (/^\d{1,15}$/.test(text) ? Number(text) : undefined);

/** The query of forwardRequestHistory. */
export const forwardHistoryQuerySchema = strictObject(
  {
    url: z.string().superRefine((url, ctx) => {
      const refusal = urlRefusal(url);
      if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
    }),
    method: methodSchema,
    queue: queueName.optional(),
    queue_exact: z.stringbool().optional(),
    queue_exclude: queueName.optional(),
    status: z.enum(FORWARD_STATUSES).optional(),
    compact: z.stringbool().optional(),
    limit: z.string().optional(),
    startKey: z.string().optional(),
  },
  {},
);
export type ForwardHistoryQuery = z.output<typeof forwardHistoryQuerySchema>;
