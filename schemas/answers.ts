/**
 * The success answers of the routes, as zod schemas: the OpenAPI document is generated from them and
 * test/openapi.test.ts parses real answers with them, so they cannot drift from what the routes send. The
 * zod-free answer types the client ships (forward-rules.ts, listings.ts, receipt.ts, secure-rules.ts) are held
 * to them by answer-types.test.ts: a difference fails `npm run typecheck`.
 */
import { z } from 'zod';
import { actionSchema } from './actions/schema';
import { conditionInputSchema } from './condition';
import { DEAD_LETTER_REASONS } from './dead-letters';
import { REPLAY_SKIPS, REPLAY_STATES } from './bulk-replays';
import { FORWARD_METHODS, FORWARD_STATUSES, type RealtimeServerFrame } from './forward-rules';
import { storedAction, storedCondition, storedIdempotency, storedRetrySchedule } from './stored-ticket';

const ms = (what: string) => z.number().describe(`${what}, ms since the epoch.`);

/** A page of a listing (the DatabaseResponse of spec 4.2, 4.3): the next page is asked with `startKey`. */
export const listingOf = <T extends z.ZodType>(item: T) =>
  z.object({
    list: z.array(item),
    startKey: z.string().nullable().describe('Pass as startKey for the next page; null at the end.'),
    endOfList: z.boolean(),
  });

export const healthAnswer = z.object({ ok: z.literal(true) });
export const openApiAnswer = z.object({ openapi: z.string(), info: z.object({}), paths: z.object({}) }).describe('An OpenAPI 3.0 document.');
export const deletedAnswer = z.object({ deleted: z.literal(true) });

export const createdProjectAnswer = z.object({
  service_id: z.string(),
  owner_id: z.string(),
  owner_key: z.string().describe('Shown once; only its hash is stored.'),
});
export const projectAnswer = z.object({
  service_id: z.string(),
  owner_id: z.string(),
  name: z.string(),
  active: z.boolean(),
  plan: z.enum(['free', 'standard', 'premium']),
  identity: z.object({ issuer: z.string(), audience: z.string(), jwks_url: z.string() }).nullable(),
  secure_request_key_set: z.boolean().describe('Whether a secureRequest key is stored (the key itself is never answered).'),
  secure_request_destinations: z
    .array(z.string())
    .describe("Where secureRequest may send: every url of a call must match one, as a Secret Key's Destinations match; [] allows any public url."),
  flood_limits: z
    .object({ per_caller_per_ticket: z.int(), per_project: z.int(), tickets: z.record(z.string(), z.int()) })
    .describe("The consume routes' flood limits in force, requests every 10 seconds (defaults filled in; docs/limits.md)."),
  created: ms('Created'),
  updated: ms('Last changed'),
});
export const devUserAnswer = z.object({ user_id: z.string(), id_token: z.string().describe('A JWT of the built-in development issuer.') });

export const secretKeyAnswer = z.object({
  name: z.string(),
  destinations: z.array(z.string()),
  access_group: z.int(),
  locked: z.boolean(),
  limits: z.object({
    per_caller_per_minute: z.int().optional(),
    per_key_per_minute: z.int().optional(),
    queued_per_caller: z.int().optional(),
  }),
  created: ms('Created'),
  updated: ms('Last changed'),
});
const mailContent = { subject: z.string(), html: z.string(), text: z.string(), created: ms('Created'), updated: ms('Last changed') };
export const mailTemplateAnswer = z.object({ template_id: z.string(), ...mailContent });
const newsletterGroup = z.union([z.string(), z.int()]).describe("'public', 'authorized', 2..99 or a group name.");
export const newsletterAnswer = z.object({ group: newsletterGroup, message_id: z.string(), ...mailContent });
export const subscriberAnswer = z.object({ email: z.string(), user_id: z.string().optional(), created: ms('Subscribed') });
export const subscribedAnswer = subscriberAnswer.extend({ group: newsletterGroup });
export const outboxMailAnswer = z.object({
  message_key: z.string(),
  kind: z.enum(['mail', 'newsletter']),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  html: z.string(),
  text: z.string(),
  ticket_id: z.string().nullable(),
  consume_id: z.string().nullable(),
  send_id: z.string().nullable(),
  created: ms('Sent'),
});
export const newsletterSendAnswer = z.object({
  send_id: z.string(),
  group: newsletterGroup,
  newsletter: z.string(),
  ticket_id: z.string(),
  consume_id: z.string(),
  status: z.enum(['sending', 'sent']),
  planned_batches: z.int().nullable(),
  delivered: z.int(),
  refused: z.int(),
  warning: z.string().optional(),
  batches: z.array(z.object({})),
  created: ms('Started'),
});

export const recordAnswer = z.object({
  record_id: z.string(),
  table: z.object({ name: z.string(), access_group: z.union([z.int(), z.literal('private')]), subscription: z.object({}).optional() }),
  user_id: z.string(),
  data: z.unknown().optional(),
  index: z.object({ name: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) }).optional(),
  tags: z.array(z.string()),
  unique_id: z.string().optional(),
  reference: z.string().optional(),
  readonly: z.boolean(),
  source: z.object({}).optional(),
  created: ms('First written'),
  updated: ms('Last written'),
  written_by: z.object({ ticket_id: z.string().nullable(), consume_id: z.string().nullable() }),
});

const publicTicket = {
  ticket_id: z.string(),
  description: z.string(),
  timestamp: ms('First registered'),
  count: z.int().optional().describe('Consumptions left; absent = unlimited.'),
  time_to_live: z.number().optional().describe('Expiry, ms since the epoch; absent = never.'),
};
/** The public subset a signed-in user sees. */
export const publicTicketAnswer = z.object(publicTicket);
/** The stored ticket as the owner lists it; it registers again unchanged (PUT it back). */
export const ownerTicketAnswer = z.object({
  ...publicTicket,
  limit_per_user: z.union([z.int(), z.literal(false)]),
  updated: ms('Last registered'),
  condition: storedCondition,
  actions: z.array(storedAction),
  legacy: z
    .boolean()
    .describe(
      'true = imported under the previous rules (spec 9.2), which it runs by until registered again; condition and actions are shown in the current format.',
    ),
  rules_version: z.literal(2).optional().describe('Absent on a legacy ticket saved before 2026-10-09: its req actions answer the body alone.'),
  idempotency: storedIdempotency.optional(),
  retry_schedule: storedRetrySchedule.optional(),
});
/** A summary entry's count: `more` entries of one kind in the minute, and the first of them as an example. */
export const sampledSummaryAnswer = z.object({
  more: z.int().describe('How many entries of this kind were counted instead of kept, in this minute.'),
  text: z.string().describe("'N more failed with CONDITION_FAILED (signature) in this minute'"),
  code: z.string().nullable().describe("The failure's code; null for dry runs that passed; 'other' for kinds past the first 16 of the minute."),
  field: z.string().optional().describe("What failed: the condition's field or the action's path."),
  minute_from: ms('The minute starts'),
  minute_to: ms('The minute ends'),
  last_at: ms('The last one counted'),
  example: z.record(z.string(), z.unknown()).describe('The first one counted: consume_id, user_id, timestamp, outcome.'),
});
/** The request a consumption received, as its log keeps it for the owner to re-check or replay (src/ticket-log/kept-request.ts). */
export const loggedRequestAnswer = z.object({
  method: z.enum(['GET', 'POST']),
  headers: z.record(z.string(), z.string()).describe("authorization, cookie and proxy-authorization read '[redacted]'."),
  search: z.string().describe("The raw query string ('?a=1' or '')."),
  url: z.string().optional().describe('Scheme, host and path as received (the query is search): read by a signature that signs the URL; absent on older rows.'),
  body: z
    .union([z.object({ text: z.string() }), z.object({ base64: z.string() }), z.object({ omitted_bytes: z.int() })])
    .describe('The raw body: its text when it is UTF-8, else base64; only its size when over 64 KiB (it cannot be replayed then).'),
  ip: z.string(),
  user_agent: z.string(),
  user_id: z.string().optional().describe('The signed-in user (signed-in route), judged again as they are at replay.'),
  signed_route: z.boolean(),
  long_form: z.boolean(),
  received_at: ms("First arrived (a replay judges the signature's timestamp against this time)"),
});
const loggedConsumption = {
  ticket_id: z.string(),
  consume_id: z.string(),
  is_test: z.literal(false),
  timestamp: ms('Consumed'),
  description: z.string(),
};
export const consumedAnswer = z.object({ ...loggedConsumption, user_id: z.string() });
export const ticketLogAnswer = consumedAnswer.extend({
  log_key: z.string(),
  failed: z.literal(true).optional(),
  check: z.literal(true).optional(),
  attempts: z.int(),
  retried: z.literal(true).optional(),
  warning: z.string().optional(),
  request: loggedRequestAnswer.optional().describe('The request the consumption received (not on a dry run).'),
  replay_of: z.string().optional().describe('The consume_id this row replays or re-checks.'),
  next_attempt_at: ms(
    'Extension (retry_schedule): while the run after resp waits for its next attempt, when that attempt starts; its attempts so far are in description.continuation.attempts',
  ).optional(),
  sampled: sampledSummaryAnswer
    .optional()
    .describe('Extension (issue 26): a summary entry counting failed consumptions or dry runs of one kind past their rate in one minute (docs/limits.md).'),
});
export const ticketJobsAnswer = z.object({
  ticket_id: z.string(),
  scheduled: z.array(z.object({ kind: z.string(), run_at: ms('When it runs next'), running: z.boolean() })),
  dead: z
    .array(z.object({ kind: z.string(), died_at: ms('When it was given up'), tries: z.int(), error: z.string().describe('The last failure.') }))
    .describe('Jobs given up after failing on every try (issue 33), newest first; at most 100 kept.'),
});
export const ticketFloodAnswer = z.object({
  ticket_id: z.string(),
  minutes: z.array(
    z.object({
      minute: ms('The minute starts'),
      limited: z.int().describe('Requests refused 429 by the flood limits (counted per isolate, at least this many).'),
      sampled: z.int().describe('Failed consumptions and dry runs counted in a summary entry instead of kept whole.'),
    }),
  ),
});
export const actionRowAnswer = z.object({
  ...loggedConsumption,
  seq: z.int(),
  path: z.string(),
  act: z.string(),
  attempts: z.int(),
  retried: z.literal(true).optional(),
  warning: z.string().optional(),
  sent: z.unknown().optional(),
  received: z.unknown().optional(),
  error: z.unknown().optional(),
});
export const ticketsAnswer = z
  .union([listingOf(ownerTicketAnswer), listingOf(publicTicketAnswer), listingOf(ticketLogAnswer), listingOf(actionRowAnswer)])
  .describe('Tickets (every field for the owner, the public subset for a user), or a log listing.');
/** A ticket's definition as registered, every default filled in (the plan of a registration). */
const ticketDefinitionAnswer = z.object({
  description: z.string(),
  count: z.int().nullable().describe('The count as registered (null = unlimited), not what is left.'),
  limit_per_user: z.union([z.int(), z.literal(false)]),
  time_to_live: z.number().nullable(),
  rules: z.enum(['current', 'legacy']).describe('legacy = it runs by the previous rules until registered again.'),
  condition: storedCondition,
  actions: z.array(storedAction),
  idempotency: storedIdempotency.nullable().describe('Extension: idempotent consumption; null = off.'),
  retry_schedule: storedRetrySchedule.nullable().describe('Extension: the retry schedule of the run after resp; null = none.'),
});
export const oneTicketAnswer = ownerTicketAnswer.extend({
  registered_count: z.int().nullable().describe('The count as registered (null = unlimited); `count` is what is left.'),
});
export const ticketPlanAnswer = z.object({
  ticket_id: z.string(),
  change: z.enum(['create', 'update', 'none']),
  current: ticketDefinitionAnswer.nullable().describe('null = no such ticket yet.'),
  proposed: ticketDefinitionAnswer,
});
export const ticketCheckAnswer = z.union([
  z.object({ ticket_id: z.string(), passed: z.literal(true), message: z.string() }),
  z.object({
    ticket_id: z.string(),
    passed: z.literal(false),
    status: z.int().describe('What a real consumption would have answered.'),
    error: z.object({ code: z.string(), message: z.string(), stage: z.enum(['ticket', 'condition']), detail: z.object({}).optional() }),
  }),
]);
export const replayAnswer = z.union([
  z.object({ ticket_id: z.string(), replay_of: z.string(), ok: z.literal(true), status: z.int(), body: z.unknown().describe('The receipt or the resp body.') }),
  z.object({
    ticket_id: z.string(),
    replay_of: z.string(),
    ok: z.literal(false),
    status: z.int(),
    error: z.object({ code: z.string(), message: z.string(), stage: z.string(), detail: z.object({}).optional() }),
  }),
]);
export const recheckAnswer = z.union([
  z.object({ ticket_id: z.string(), replay_of: z.string(), passed: z.literal(true), message: z.string() }),
  z.object({
    ticket_id: z.string(),
    replay_of: z.string(),
    passed: z.literal(false),
    status: z.int(),
    error: z.object({ code: z.string(), message: z.string(), stage: z.string(), detail: z.object({}).optional() }),
  }),
]);
/** A logged consumption's signature, checked again (issue 27 item 5): never a secret or a signature value. */
export const signatureDiagnosisAnswer = z.object({
  ticket_id: z.string(),
  consume_id: z.string(),
  received_at: ms('First arrived'),
  url_kept: z.boolean().describe('Whether the log row kept the URL (rows before URLs were kept cannot verify a ${url} signature).'),
  signature: z
    .object({
      config: z.object({}).passthrough().describe("The ticket's signature part, as checked (with secretName as asked)."),
      verified: z.boolean(),
      result: z
        .string()
        .describe(
          "The first reason it failed ('the request has no such header', 'the timestamp is missing, not a number, or outside the tolerance', …), or 'verified'.",
        ),
      trace: z
        .object({
          source: z
            .object({ header: z.string().optional(), field: z.string().optional(), found: z.boolean() })
            .optional()
            .describe('The header (or body field) read.'),
          items: z
            .array(z.string())
            .optional()
            .describe('The items of the header; an item holding a signature is shown as its part with … in place of the signature.'),
          matched_parts: z.array(z.int()).optional().describe("Each item's first matching part (index into parts), -1 none."),
          captures: z.record(z.string(), z.string()).optional().describe('Captures of parts other than ${signature}.'),
          signature_candidates: z.int().optional(),
          decoded_lengths: z.array(z.int()).optional().describe('Byte lengths of the candidate signatures that decoded.'),
          timestamp: z
            .object({ value: z.string().optional(), age_seconds: z.number().optional(), tolerance: z.number(), fresh: z.boolean() })
            .optional()
            .describe('Age at arrival, in seconds (negative: from the future).'),
          body_sha256: z.object({ checked: z.boolean(), matches: z.boolean().optional() }).optional(),
          signed: z
            .union([z.object({ length: z.int(), sha256: z.string() }), z.object({ missing_token: z.string() })])
            .optional()
            .describe('The signed bytes: their length and SHA-256 (hex), or the token without a value.'),
          key: z.enum(['usable', 'unusable']).optional(),
        })
        .describe('What the check found, as far as it got.'),
    })
    .nullable()
    .describe('null when the ticket has no signature condition (or no longer exists).'),
  presets: z.object({
    secretName: z.string(),
    matching: z
      .array(z.object({ id: z.string(), name: z.string() }))
      .describe('The presets whose scheme verifies this request with this Secret Key (scheme inference).'),
  }),
});
export const presetMatchAnswer = z.object({
  secretName: z.string(),
  matching: z.array(z.object({ id: z.string(), name: z.string() })).describe('The presets whose scheme verifies the request with the Secret Key.'),
  tried: z.int().describe('How many presets were tried.'),
});
/** The project as the owner key reads it: projectAnswer without created/updated (and never the secureRequest key). */
export const ownerProjectAnswer = projectAnswer.pick({
  service_id: true,
  owner_id: true,
  name: true,
  plan: true,
  active: true,
  identity: true,
  secure_request_key_set: true,
  secure_request_destinations: true,
  flood_limits: true,
});
export const ticketDeletedAnswer = z.object({ deleted: z.literal(true), ticket_id: z.string() });
export const logClearingAnswer = z.object({ message: z.string(), ticket_id: z.string(), before: ms('Rows before this time are deleted') });

export const receiptAnswer = z
  .object({ tkid: z.string().describe("'#<ticket_id>#<consume_id>#<consumer>'"), hash: z.string().describe('Hex HMAC-SHA256 of tkid.') })
  .describe("The receipt, unless the ticket's resp action answered with a body of its own (any JSON).");

/** Named in components/schemas; every other schema is written inline where it is used. */
const forwardStatus = z.enum(FORWARD_STATUSES);
export const forwardErrorAnswer = z.object({
  code: z.string(),
  message: z.string(),
  status_code: z.int().optional().describe('A streamed request answered 400 or more: the status.'),
  body: z.unknown().optional().describe('... and its body (the first 64 KiB).'),
  truncated: z.boolean().optional().describe('... and whether that body was cut.'),
  chunks: z.int().optional().describe('A streamed request that failed after its answer began: the pieces kept.'),
});
/**
 * Extension (issue 36): the sends of a request sent with `retry` that were answered 429 or 503 and waited
 * out, and the times it was held because its destination's circuit was open.
 */
const forwardAttemptsAnswer = z
  .array(
    z.object({
      at: ms('That send began, or the hold began'),
      status_code: z.int().optional().describe('429 or 503; absent on a hold for an open circuit (nothing was sent)'),
      waited_ms: z.int().describe('How long the request waited before it was tried again'),
      waited: z.literal('circuit').optional().describe("Extension (circuit): the request was held, not sent: its destination's circuit was open"),
    }),
  )
  .optional()
  .describe(
    'Extension (retry): the sends answered 429 or 503 and waited out, and the holds for an open destination circuit, oldest first (the latest 20); the last send is the request itself (executed, status_code).',
  );
const DEAD_LETTER_REASONS_TEXT =
  'retry_window_ended (still 429 or 503 when within ran out), error_status (408 or 5xx), timeout, request_failed (no answer: network, too large, runner cut off)';
const deadLetterMark = z
  .enum(DEAD_LETTER_REASONS)
  .optional()
  .describe(`Extension (dead letters): a request sent with retry that failed after its last attempt, and why: ${DEAD_LETTER_REASONS_TEXT}.`);
const nextAttemptAnswer = ms(
  'Extension (retry): while the request waits out a 429 or 503 or an open destination circuit (status pending), when it is tried again',
).optional();
export const forwardStatusAnswer = z.object({
  id: z.string().describe("'stamp:entropy'"),
  status: forwardStatus,
  queue_name: z.string(),
  in_queue: z.int().describe('Unresolved requests in the queue up to this one (1 = next to run); 0 once settled.'),
  created: ms('Made'),
  updated: ms('Last status change'),
  executed: ms('Began running').optional(),
  responded: ms('The answer finished arriving').optional(),
  status_code: z.int().optional().describe("The destination's own status code."),
  response_body: z.unknown().optional().describe("The destination's body: JSON when it parses, else text."),
  error: forwardErrorAnswer.optional().describe('Why a failed request failed.'),
  attempts: forwardAttemptsAnswer,
  next_attempt_at: nextAttemptAnswer,
  dead_letter: deadLetterMark,
  realtime_group: z.string().optional().describe('The realtime room of a realtime stream (dispatch answer only).'),
  stream: z.boolean().optional().describe('Polled with since: whether the request was sent with stream.'),
  chunks: z
    .array(z.object({ seq: z.int(), txt: z.string() }))
    .optional()
    .describe('Polled with since: the stored pieces after it (a finalized streamed request answers its kept version instead of this object).'),
  last_seq: z.int().optional().describe('Polled with since: the cursor to send next.'),
  more: z.boolean().optional().describe('Polled with since: more pieces are already stored; read again at once.'),
});
/** The status object without a cursor poll's members: the answer of a dispatch and of a poll without `since`. */
export const forwardStatusEnvelopeAnswer = forwardStatusAnswer.omit({ stream: true, chunks: true, last_seq: true, more: true });
export const finalizeAnswer = z.object({ finalized: z.boolean(), message: z.string() });
export const forwardDispatchAnswer = z
  .unknown()
  .describe(
    "Direct (no queue): the destination's body as it came (the key's copies replaced by $CLIENT_SECRET), with x-svc-status-code and x-svc-request-id headers. " +
      'Queued: the status object (ForwardStatus). check: true: { check, outcome, request, verdicts }.',
  );
/** A dry run's answer (`check: true`): the request as it would go, the key shown as its token. Named by forwardDispatchAnswer's text. */
export const forwardCheckAnswer = z.object({
  check: z.literal(true),
  outcome: z.enum(['send', 'refuse']).describe("'send' when every verdict allows it."),
  request: z.object({
    method: z.enum(FORWARD_METHODS),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().nullable(),
  }),
  verdicts: z.object({
    secret: z.string().describe("'unused', 'allowed' or why the Secret Key refuses."),
    destination: z.string().describe("'allowed' or why the destination is refused."),
    limits: z.string().describe("'allowed' or which limit refuses."),
  }),
});
export const removalAnswer = z.object({ removed: z.boolean(), message: z.string() });
export const queueCountAnswer = z.object({ queue_name: z.string(), in_queue: z.int() });
export const requestHistoryAnswer = z.object({
  id: z.string(),
  status: forwardStatus,
  queue_name: z.string().nullable(),
  method: z.enum(FORWARD_METHODS),
  url: z.string(),
  created: ms('Made'),
  updated: ms('Last status change'),
  executed: ms('Began running').optional(),
  responded: ms('The answer finished arriving').optional(),
  status_code: z.int().optional(),
  error: forwardErrorAnswer.optional(),
  attempts: forwardAttemptsAnswer,
  next_attempt_at: nextAttemptAnswer,
  dead_letter: deadLetterMark,
  stream: z.literal(true).optional().describe('Sent with stream: response_body is null until finalized.'),
  request_body: z.unknown().optional(),
  response_body: z.unknown().optional(),
  compact: z.literal(true).optional(),
  request_text: z.string().optional(),
  response_text: z.string().optional(),
  response_complete_marker: z.boolean().optional(),
});
export const secureAnswerItem = z.object({
  response: z
    .unknown()
    .describe("The customer API's body: JSON when it parses, else text (null for a failed request); copies of the secureRequest key read $SECURE_REQUEST_KEY."),
  statusCode: z.int().describe("The customer API's own status, any status (redirects are not followed: a 3xx is the answer); 0 for a failed request."),
  url: z.string().describe('The url as the request wrote it.'),
  error: z
    .object({ code: z.enum(['TIMEOUT', 'REQUEST_FAILED']), message: z.string() })
    .optional()
    .describe('Only in an array: why this request got no answer (a single request fails the call with this error instead).'),
});
export const secureRequestAnswer = z
  .union([secureAnswerItem, z.array(secureAnswerItem)])
  .describe('One answer for one request; an array of answers, in the order of the requests, for an array.');
export const realtimeServerFrameAnswer = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('joined'), group: z.string() }),
    z.object({ type: z.literal('left') }),
    z.object({ type: z.literal('piece'), group: z.string(), id: z.string().describe("The request's 'stamp:entropy'."), seq: z.int(), txt: z.string() }),
    z.object({ type: z.literal('error'), message: z.string() }),
  ])
  .describe('One frame the realtime socket sends: a JSON text frame.') satisfies z.ZodType<RealtimeServerFrame>;

export const NAMED_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  TicketAction: actionSchema,
  TicketCondition: conditionInputSchema,
  StoredTicketAction: storedAction,
  StoredTicketCondition: storedCondition,
  OwnerTicket: ownerTicketAnswer,
  Receipt: receiptAnswer,
  Deleted: deletedAnswer,
  ForwardStatus: forwardStatusAnswer,
};

/** A JSON-RPC 2.0 request or notification of the Model Context Protocol (POST /mcp). */
export const jsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.int()]).optional().describe('Absent on a notification.'),
    method: z.string().describe('initialize, tools/list, tools/call, resources/list, resources/read, …'),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('A JSON-RPC 2.0 message of the Model Context Protocol (a batch is an array of them).');

/** The JSON-RPC answer of POST /mcp: a result, or an error such as -32602 for an unknown tool. */
export const jsonRpcAnswer = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.unknown().describe('The id of the request answered (null when the request could not be read).'),
  result: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('A tool refusal is a result with isError: true, text "<CODE>: <message>" and structuredContent { code, message, detail? }.'),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** The owner's view of forwarding (issue 15): a history item named by its caller, and one request in full. */
export const ownerForwardItemAnswer = requestHistoryAnswer.extend({
  caller: z.string().describe("Who made it: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
});
/** Extension (issue 36 item 6): a project's paused destinations, as their callers' (and tickets') objects reported them. */
export const pausedDestinationsAnswer = z.object({
  list: z.array(
    z.object({
      origin: z.string().describe("The destination's origin (scheme, host and port)."),
      caller: z
        .string()
        .optional()
        .describe("Whose queued requests it holds: a user id, 'visitor:<name>' or 'owner:<owner id>' (a circuit is kept per caller); absent on a ticket's."),
      ticket: z
        .string()
        .optional()
        .describe("The ticket whose runs with a retry_schedule it holds (a circuit is kept per ticket too); absent on a forwarding caller's."),
      state: z.enum(['open', 'half-open']).describe('open: requests sent with retry are held until the next probe; half-open: a probe is out.'),
      since: ms('The circuit opened'),
      failures: z.int().describe('Failures counted since the run of them began (5 in a row within 10 minutes open it).'),
      next_probe_at: ms('The next probe (open), or when the probe that is out is taken for lost (half-open)'),
    }),
  ),
});
/**
 * Extension (issue 36 item 3): a dead letter as the owner lists it, in a shape for every kind of dead letter
 * (what, when, why, attempts), the kind's own members under its name.
 */
export const deadLetterAnswer = z.object({
  id: z.string().describe("The entry's id (forward: the request's 'stamp:entropy')."),
  kind: z
    .enum(['forward', 'ticket'])
    .describe(
      "What kind of work failed: forward (a queued forwarded request sent with retry), ticket (a ticket's run after its answer, with a retry_schedule).",
    ),
  what: z.string().describe("What failed, to read: forward: '<METHOD> <url>'; ticket: '<act> <url>' (a req) or '<act> at <path>'."),
  created: ms('Made'),
  failed_at: ms('Settled as failed after its last attempt'),
  reason: z.enum(DEAD_LETTER_REASONS).describe(`Why it failed: ${DEAD_LETTER_REASONS_TEXT}.`),
  status_code: z.int().optional().describe("The destination's last status code (absent when it never answered)."),
  error: z.object({ code: z.string(), message: z.string() }).optional().describe('The error it settled with (absent for an answer kept as its response).'),
  attempts: z.int().describe('Sends made in all: those waited out and the last one.'),
  waits: z
    .array(
      z.object({
        at: ms('That send began, or the hold began'),
        status_code: z.int().optional(),
        waited_ms: z.int(),
        waited: z.literal('circuit').optional(),
      }),
    )
    .describe('The sends answered 429 or 503 and waited out, and the holds for an open destination circuit, oldest first (the latest 20).'),
  forward: z
    .object({
      caller: z.string().describe("Who made it: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
      method: z.enum(FORWARD_METHODS),
      url: z.string(),
      queue_name: z.string().nullable(),
      full_id: z.string().describe("'<METHOD>:<stamp>:<entropy>:<url>': GET …/forward/requests/{id} reads it in full."),
    })
    .optional()
    .describe('kind forward: the request.'),
  ticket: z
    .object({
      ticket_id: z.string(),
      consume_id: z.string().describe("The consumption whose run failed (the ticket log's entry)."),
      act: z.string().describe('The failed action.'),
      path: z.string().describe("The failed action's place, e.g. 'actions[1]'; a partial replay goes on from it."),
    })
    .optional()
    .describe('kind ticket: the consumption and its failed action.'),
});
const replayProgressAnswer = z.object({
  done: z.int().describe('Entries taken so far (run or skipped).'),
  succeeded: z.int(),
  failed: z.int(),
  skipped: z.int(),
  skipped_by: z
    .partialRecord(z.enum(REPLAY_SKIPS), z.int())
    .describe(
      'Why entries were skipped: succeeded_actions (an action with an effect succeeded in it: only a full replay runs it again), not_kept (its request was not kept), gone (no longer in the log), code_differs (an entry logged before codes were indexed, with another code), no_count_left (the ticket has no count left), interrupted (its step was cut off while it ran: it may or may not have run, and is not run again).',
    ),
  cursor: z.object({ t: z.int(), k: z.string() }).nullable().describe('The last entry taken (time, consume_id); entries run oldest first.'),
  taking: z.object({ t: z.int(), k: z.string() }).optional().describe('The entry being replayed right now.'),
  next_at: ms('While running: when the next batch is due').optional(),
  failures: z.array(z.object({ consume_id: z.string(), code: z.string() })).describe('The latest entries whose replay failed (the latest 20), with its code.'),
});
export const bulkReplayAnswer = z.object({
  id: z.int(),
  state: z.enum(REPLAY_STATES),
  created_at: ms('Started'),
  finished_at: ms('Finished or cancelled').nullable(),
  total: z.int().describe('Entries the filter matched when it started.'),
  filter: z.record(z.string(), z.unknown()).describe('The filter as given.'),
  full: z.boolean(),
  per_minute: z.int(),
  progress: replayProgressAnswer,
});
export const bulkReplayStartAnswer = z.union([
  z.object({
    dry_run: z.literal(true),
    matched: z.int().describe('Entries the filter matches now (each of them would be taken: run, or skipped as progress.skipped_by tells).'),
    unindexed: z.int().describe('Of them, entries logged before codes were indexed: with a code filter, each is judged by its code when read.'),
    limit: z.int().describe('The most one replay takes.'),
  }),
  z.object({ dry_run: z.literal(false), replay: bulkReplayAnswer }),
]);
export const bulkReplayListAnswer = z.object({ list: z.array(bulkReplayAnswer) });
export const deadLetterReplayAnswer = z.union([
  z.object({
    ticket_id: z.string(),
    replay_of: z.string(),
    partial: z.boolean().describe('Went on from the failed action (true) or ran the whole chain (full).'),
    ok: z.literal(true),
    status: z.int(),
    body: z.unknown(),
  }),
  z.object({
    ticket_id: z.string(),
    replay_of: z.string(),
    partial: z.boolean(),
    ok: z.literal(false),
    status: z.int(),
    error: z.object({ code: z.string(), message: z.string(), stage: z.string(), detail: z.object({}).optional() }),
  }),
]);
export const ownerForwardRequestAnswer = ownerForwardItemAnswer.extend({
  full_id: z.string().describe("'<METHOD>:<stamp>:<entropy>:<url>'."),
  request_headers: z
    .record(z.string(), z.string())
    .nullable()
    .describe('As written, $CLIENT_SECRET in place; a credential typed out by the caller reads [redacted].'),
  finalized: z.boolean().optional().describe('A streamed request: whether its kept version was stored (then response_body holds it).'),
  stream_text: z
    .object({ text: z.string(), pieces: z.int(), complete: z.boolean().describe('false when the text was cut at 1,000,000 characters.') })
    .nullable()
    .optional()
    .describe('A streamed request not finalized: its stored pieces joined (null once none are kept).'),
});

/** Extension (issue 37 item 1): latency percentiles from a mergeable sketch (relative error at most 2 %). */
const percentilesAnswer = z
  .object({ p50: z.number(), p95: z.number(), p99: z.number() })
  .nullable()
  .describe('Percentiles in ms (within 2 %); null when nothing was timed in the bucket.');
const ticketMetricValues = {
  consumptions: z.int().describe('Consumptions answered: succeeded + failed (dry runs and duplicates apart).'),
  succeeded: z.int(),
  failed: z.int().describe('Failed consumptions, a run that failed after its answer included.'),
  failures_by_code: z.record(z.string(), z.int()).describe('Failed consumptions by error code.'),
  dry_runs: z.int(),
  duplicates: z.int().describe('Requests answered as a duplicate of an earlier consumption (Idempotency-Key).'),
  retries: z.int().describe('Attempts of a retry_schedule scheduled after a failure.'),
  dead_letters: z.int(),
  flood_refused: z.int().describe('Requests refused by flood control (429).'),
  latency_ms: percentilesAnswer.describe('Of the whole consumption, arrival to answer.'),
  req_latency_ms: percentilesAnswer.describe("Of each req action's send, to its answer."),
};
export const metricsAnswer = z.object({
  from: ms('The first bucket starts'),
  to: ms('The range ends'),
  bucket_ms: z.int(),
  points: z.array(z.object({ start: ms('The bucket starts'), ...ticketMetricValues })).describe('One point per bucket, oldest first, empty buckets as zeros.'),
  totals: z.object(ticketMetricValues),
});
const forwardMetricValues = {
  calls: z.int(),
  status: z
    .object({ '2xx': z.int(), '3xx': z.int(), '4xx': z.int(), '5xx': z.int(), error: z.int() })
    .describe('Calls by status class; error: no answer came.'),
  bytes: z.int().describe('Bytes of the answers relayed.'),
  latency_ms: percentilesAnswer,
};
export const forwardMetricsAnswer = z.object({
  from: ms('The first bucket starts'),
  to: ms('The range ends'),
  bucket_ms: z.int(),
  by: z.enum(['key', 'destination']),
  series: z
    .array(
      z.object({
        name: z.string().describe("The Secret Key's name, or the destination's origin."),
        points: z.array(z.object({ start: ms('The bucket starts'), ...forwardMetricValues })),
        totals: z.object(forwardMetricValues),
      }),
    )
    .describe('One series per Secret Key or destination with calls in the range (the 20 first by name).'),
});
/** Extension (issue 37 item 4): one consumption as the event inspector lists it. */
export const logEventAnswer = z.object({
  consume_id: z.string(),
  log_key: z.string().describe("The log entry's key (a dry run's ends ':CHK')."),
  time: ms('Consumed'),
  outcome: z.enum(['ok', 'failed', 'check']).describe('check: a dry run.'),
  consumer: z.string().describe('Who consumed: the user id the log keeps.'),
  code: z.string().nullable().describe("The failure's error code; null when it succeeded."),
  duration_ms: z.number().optional().describe("The whole consumption's duration, when its entry has one."),
  actions_run: z.int().describe('Action rows logged.'),
  first_failure: z.object({ code: z.string(), path: z.string() }).optional().describe('The first action that failed: its code and place.'),
  replay_of: z.string().optional(),
  sampled: z.literal(true).optional().describe('A summary entry counting failures of one kind in a minute (issue 26), not one consumption.'),
});
/** Extension (issue 37 item 4): a page of the event inspector's search, with how far it walked the log. */
export const logEventsAnswer = listingOf(logEventAnswer).extend({
  scanned_to: z
    .int()
    .nullable()
    .describe(
      'The time of the last entry this page walked (entries after it, older, are for the next page): a page may stop at its bound with few or no matches and a startKey. null when the page reached the end of the log or filled up.',
    ),
  scanned: z.int().describe('Log entries this page walked.'),
  segments_read: z.int().describe('R2 segments of older entries this page read (at most 20).'),
});
/** Extension (issue 37 item 4): one consumption in full, as the event inspector's detail pane shows it. */
export const logEventDetailAnswer = z.object({
  event: logEventAnswer,
  request: loggedRequestAnswer.nullable().describe('The request as received, credentials redacted; null on a dry run or when none was kept.'),
  actions: z.array(
    z.object({
      seq: z.int(),
      path: z.string(),
      act: z.string(),
      attempts: z.int(),
      ms: z.number().optional().describe('How long it took, when its row has it.'),
      sent: z.unknown().optional(),
      received: z.unknown().optional(),
      error: z.unknown().optional(),
      warning: z.unknown().optional(),
    }),
  ),
  answer: z.record(z.string(), z.unknown()).describe('What the log keeps of the answer: outcome (ok, or the error), responded.status, continuation.'),
});
