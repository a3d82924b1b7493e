import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { HANDSHAKE_NOTES, SIGNATURE_PRESETS, findPreset, unknownPresetMessage } from '../../schemas/signature-presets';
import type { OwnerApi } from './owner-api';
import { refusalResult, successResult, toolResultOf } from './results';
import { guarded, limit, ms, startKey, ticketId } from './tool-parts';
import { TICKET_SCHEMA_URI } from './resources';
import { DEAD_LETTER_REASONS } from '../../schemas/dead-letters';
import { registerTicketDeadLetterTools } from './replay-tools';
import { registerMetricsTools } from './metrics-tools';

/**
 * The tools: each a thin adaptor over one owner route of this Worker (see owner-api.ts), so the
 * answer and every refusal are the route's own.
 */
export function registerTools(server: McpServer, api: OwnerApi): void {
  server.registerTool(
    'list_tickets',
    {
      description: "List the project's tickets with every field (condition, actions, remaining count), one page at a time.",
      inputSchema: { start_key: startKey, limit },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('getTickets', { query: { startKey: args.start_key, limit: args.limit } }))),
  );

  server.registerTool(
    'get_ticket',
    {
      description:
        'Read one ticket as registered: description, count (remaining) and registered_count, limit_per_user, time_to_live, condition, actions, ' +
        'and the extensions it uses (idempotency, retry_schedule: the retry schedule of the run after resp with its defaults filled in).',
      inputSchema: { ticket_id: ticketId },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('getTicket', { params: { ticket_id: args.ticket_id } }))),
  );

  server.registerTool(
    'register_ticket',
    {
      description:
        `Register a ticket, or replace the one with this id. \`ticket\` is the registration JSON ({ description?, count?, limit_per_user?, time_to_live?, condition?, actions, ` +
        `idempotency?, retry_schedule? }), ` +
        `as described by the resource ${TICKET_SCHEMA_URI}. A refusal is INVALID_PARAMETER with a message naming the field path (e.g. "actions[0].exe.url"): fix that field and call again.`,
      inputSchema: { ticket_id: ticketId, ticket: z.record(z.string(), z.unknown()).describe(`The registration body; see ${TICKET_SCHEMA_URI}.`) },
      annotations: { idempotentHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('registerTicket', { params: { ticket_id: args.ticket_id }, body: args.ticket }))),
  );

  server.registerTool(
    'delete_ticket',
    {
      description: 'Delete a ticket and its per-user counters. Its log stays (clear it with clear_log).',
      inputSchema: { ticket_id: ticketId },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('deleteTicket', { params: { ticket_id: args.ticket_id } }))),
  );

  server.registerTool(
    'check_ticket',
    {
      description:
        'Dry-run a registered ticket against a sample request: runs its whole condition (signature, request, user checks), runs no action and uses no count. ' +
        'Answers { passed: true } or { passed: false, status, error: { code, message, stage } } with what a real consumption would have answered.',
      inputSchema: {
        ticket_id: ticketId,
        method: z.enum(['GET', 'POST']).optional().describe('The method of the sample request (default POST).'),
        headers: z.record(z.string(), z.string()).optional().describe('Request headers, e.g. a signature header.'),
        body: z.unknown().optional().describe('The body: a string is sent as the raw body text, anything else as its JSON text.'),
        query: z
          .record(z.string(), z.union([z.string(), z.array(z.string())]))
          .optional()
          .describe('Query string parameters.'),
        user_id: z.string().optional().describe('Consume as this signed-in project user (as on /tpa); absent = anonymous.'),
        ip: z.string().optional().describe("The caller's IP address (default 127.0.0.1)."),
      },
      annotations: { readOnlyHint: true },
    },
    ({ ticket_id, ...sample }) => guarded(async () => toolResultOf(await api('checkTicketSample', { params: { ticket_id }, body: sample }))),
  );

  server.registerTool(
    'read_log',
    {
      description:
        "Read a ticket's consumption log, newest first: one row per consumption or dry run (consume_id, user_id, failed, code, timestamp, description). " +
        "Rows reach the log within about a second of the consumption. Read one consumption's action rows with read_consumption. " +
        'A run after resp waiting for its retry schedule (extension) has next_attempt_at, its attempts in description.continuation.attempts.',
      inputSchema: { ticket_id: ticketId, from: ms('From this time'), to: ms('Up to this time'), start_key: startKey, limit },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(
          await api('getTickets', {
            query: { ticket_id: `#${args.ticket_id}#`, from: args.from, to: args.to, startKey: args.start_key, limit: args.limit },
          }),
        ),
      ),
  );

  server.registerTool(
    'read_consumption',
    {
      description: 'Read the action rows of one consumption (what each action did), by the consume_id of a read_log row.',
      inputSchema: { ticket_id: ticketId, consume_id: z.string().describe('The consume_id of a log row.'), start_key: startKey, limit },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(await api('getTickets', { query: { ticket_id: `@${args.ticket_id}#${args.consume_id}#`, startKey: args.start_key, limit: args.limit } })),
      ),
  );

  server.registerTool(
    'diagnose_signature',
    {
      description:
        "Why did a consumption's signature fail? Checks the request its log row kept against the ticket's signature as at its arrival and answers what the check found: " +
        "the header (or body field) read, its items and captures, the timestamp's age, the signed bytes' length and SHA-256, the first reason it failed; " +
        'and which signature presets verify this request with the Secret Key (scheme inference: give secret_name to try another key, or for a ticket without a signature). ' +
        'Never a secret or a signature value.',
      inputSchema: {
        ticket_id: ticketId,
        consume_id: z.string().describe('The consume_id of a read_log row.'),
        secret_name: z.string().optional().describe("The Secret Key to check with (default: the one the ticket's signature names)."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(
          await api('diagnoseConsumptionSignature', {
            params: { ticket_id: args.ticket_id, consume_id: args.consume_id },
            body: args.secret_name === undefined ? {} : { secretName: args.secret_name },
          }),
        ),
      ),
  );

  server.registerTool(
    'match_signature_preset',
    {
      description:
        'Which signature presets verify a request captured elsewhere (a provider delivery log, a request bin) with a Secret Key: scheme inference before registering a ticket. ' +
        'Give the headers and raw body as delivered, the URL the provider called (for presets that sign it) and when it was delivered. Never a secret or a signature value.',
      inputSchema: {
        secret_name: z.string().describe('The Secret Key holding the provider secret or public key.'),
        headers: z.record(z.string(), z.string()).describe('The headers as delivered.'),
        body: z.string().optional().describe('The raw body text, exactly as delivered.'),
        url: z.string().optional().describe('The URL the provider called, with its query.'),
        method: z.enum(['GET', 'POST']).optional().describe('Default POST.'),
        received_at: z.int().min(0).optional().describe('When it was delivered (ms since the epoch); timestamps are judged against it. Default now.'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ secret_name, ...sample }) => guarded(async () => toolResultOf(await api('matchSignaturePresets', { body: { secretName: secret_name, ...sample } }))),
  );

  server.registerTool(
    'clear_log',
    {
      description:
        "Delete a ticket's log rows (consumptions and their action rows) older than `before` (default now), in the background. The ticket and its count are untouched.",
      inputSchema: { ticket_id: ticketId, before: ms('Delete the rows before this time (default now)') },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(await api('clearTicketLog', { params: { ticket_id: args.ticket_id }, body: args.before === undefined ? {} : { before: args.before } })),
      ),
  );

  server.registerTool(
    'list_secret_keys',
    {
      description:
        "List the project's Secret Keys: names and settings (destinations, access_group, locked, limits), never their values. A ticket names one by secretName.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () => guarded(async () => toolResultOf(await api('listSecretKeys'))),
  );

  server.registerTool(
    'list_paused_destinations',
    {
      description:
        "List the project's paused destinations (extension): origins whose circuit opened after 5 failures in a row (5xx, timeout, network error) " +
        'within 10 minutes, per forwarding caller (caller) or per ticket (ticket), with state (open or half-open), since, failures and next_probe_at. ' +
        "Queued requests sent with retry to them, and the attempts of a ticket's runs with a retry_schedule, wait until a probe (one every 1 to 5 " +
        'minutes) succeeds; nothing is dropped.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () => guarded(async () => toolResultOf(await api('listPausedDestinations'))),
  );

  server.registerTool(
    'list_dead_letters',
    {
      description:
        "List the project's dead letters (extension), newest first, one page at a time: queued forwarded requests sent with retry that failed after their last attempt, " +
        'each with what (method and url), when it failed, why (reason: retry_window_ended, error_status, timeout or request_failed; the last status_code or error), ' +
        'the sends made and the waits, and its caller. Filter by caller (a user id, visitor:<name> or owner:<owner id>) or reason.',
      inputSchema: {
        caller: z.string().optional().describe("Only this caller's: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
        reason: z.enum(DEAD_LETTER_REASONS).optional().describe('Only dead letters that failed for this reason.'),
        start_key: startKey,
        limit,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(await api('listProjectDeadLetters', { query: { caller: args.caller, reason: args.reason, startKey: args.start_key, limit: args.limit } })),
      ),
  );

  registerTicketDeadLetterTools(server, api);
  registerMetricsTools(server, api);

  server.registerTool(
    'list_signature_presets',
    {
      description:
        'How known providers (Stripe, GitHub, Slack, Shopify, Standard Webhooks, Svix/Clerk/Resend, Paddle, Linear, Zoom, Intercom, Typeform, Calendly, ' +
        'Vercel, Bitbucket, Jira, Coinbase Commerce, WooCommerce, Sentry, Notion, Twitch, GitLab, Postmark, Microsoft Graph) authenticate webhooks: ' +
        'each with its docs link, what the Secret Key must hold, the signature part, the handshake it answers ' +
        "and idempotencyKey: the provider's event id, the ticket's default idempotency key (docs/api.md, Idempotent consumption). " +
        'Register one as condition.preset { id, secretName }; it expands into condition.signature and condition.handshake. ' +
        "Token presets (GitLab, Postmark) are signatures with algorithm 'token': the Secret Key named by secretName holds the token itself, compared with the header in constant time, so the token is never written into the ticket.",
      inputSchema: { id: z.string().optional().describe('One preset id, e.g. svix; absent = all.') },
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      if (args.id === undefined) return successResult({ presets: SIGNATURE_PRESETS, handshakes: HANDSHAKE_NOTES });
      const preset = findPreset(args.id);
      if (!preset) return refusalResult('INVALID_PARAMETER', `${unknownPresetMessage(args.id)}.`);
      return successResult({ presets: [preset], handshakes: preset.handshake ? { [preset.handshake]: HANDSHAKE_NOTES[preset.handshake] } : {} });
    },
  );
}
