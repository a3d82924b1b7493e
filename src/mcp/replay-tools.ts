import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DEAD_LETTER_REASONS } from '../../schemas/dead-letters';
import { MAX_PER_MINUTE, REPLAY_OUTCOMES } from '../../schemas/bulk-replays';
import type { OwnerApi } from './owner-api';
import { toolResultOf } from './results';
import { guarded, limit, ms, startKey, ticketId } from './tool-parts';

const consumeId = z.string().describe("The consumption's consume_id (a dead letter's id, or a read_log row's consume_id).");
const replayId = z.int().min(0).describe('The bulk replay id, as bulk_replay answered it.');
const RUNS_ACTIONS = "Not read-only: a replay runs the ticket's actions again (requests, table writes) and uses a count.";

const filter = z
  .object({
    consume_ids: z.array(z.string()).optional().describe('Only these consumptions (1 to 1,000 consume_ids).'),
    from: ms('Logged (or, with dead_letters, failed) at or after'),
    to: ms('Logged (or failed) at or before'),
    outcome: z.enum(REPLAY_OUTCOMES).optional().describe("Which consumptions: 'failed' (the default), 'ok' or 'any'."),
    code: z.string().optional().describe('Only failed consumptions with this error code, e.g. REQUEST_FAILED.'),
    dead_letters: z.boolean().optional().describe("The ticket's dead letters instead of its log (outcome and code do not apply)."),
  })
  .describe('Which consumptions to replay; at most 100,000 entries a replay.');

/**
 * The tools over a ticket's dead letters and bulk replays (issue 36 items 3 and 4, extensions): thin
 * adaptors over the owner routes, as the other tools are.
 */
export function registerTicketDeadLetterTools(server: McpServer, api: OwnerApi): void {
  server.registerTool(
    'list_ticket_dead_letters',
    {
      description:
        "List a ticket's dead letters (extension), newest first, one page at a time: runs after the answer whose retry_schedule ran out, each with " +
        'the failed action (ticket.act and ticket.path), when it failed, why (reason; the last status_code or error), the attempts and the waits. ' +
        'Replay one with replay_dead_letter, or many with bulk_replay and filter.dead_letters.',
      inputSchema: {
        ticket_id: ticketId,
        reason: z.enum(DEAD_LETTER_REASONS).optional().describe('Only dead letters that failed for this reason.'),
        start_key: startKey,
        limit,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(
          await api('listTicketDeadLetters', {
            params: { ticket_id: args.ticket_id },
            query: { reason: args.reason, startKey: args.start_key, limit: args.limit },
          }),
        ),
      ),
  );

  server.registerTool(
    'replay_dead_letter',
    {
      description:
        "Replay one of a ticket's dead letters now, as a new consumption marked replay_of, and answer what it answered. By default it goes on from the " +
        'failed action: the actions that succeeded do not run again; full: true runs the whole chain. A replay that succeeds takes it off the list. ' +
        RUNS_ACTIONS,
      inputSchema: {
        ticket_id: ticketId,
        consume_id: consumeId,
        full: z.boolean().optional().describe('Run the whole chain again, the actions that already succeeded included (default false).'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(
          await api('replayTicketDeadLetter', {
            params: { ticket_id: args.ticket_id, consume_id: args.consume_id },
            body: args.full === undefined ? {} : { full: args.full },
          }),
        ),
      ),
  );

  server.registerTool(
    'bulk_replay',
    {
      description:
        "Replay a ticket's consumptions by filter (its failed ones by default, or its dead letters), oldest first, per_minute at a time, in the background. " +
        'Call with dry_run: true first: it answers how many the filter matches (matched) and runs nothing. Without dry_run it answers the replay started ' +
        '(id, state, total, progress); follow it with bulk_replay_status, stop it with cancel_bulk_replay. Actions that already succeeded in a consumption ' +
        `never run again unless full: true. One replay at a time per ticket. ${RUNS_ACTIONS}`,
      inputSchema: {
        ticket_id: ticketId,
        filter,
        dry_run: z.boolean().optional().describe('Only count what the filter matches (default false).'),
        per_minute: z.int().min(1).max(MAX_PER_MINUTE).optional().describe(`Entries replayed per minute, 1 to ${MAX_PER_MINUTE} (default 60).`),
        full: z.boolean().optional().describe('Run whole chains again, the actions that already succeeded included (default false).'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    ({ ticket_id, ...body }) => guarded(async () => toolResultOf(await api('startBulkReplay', { params: { ticket_id }, body }))),
  );

  server.registerTool(
    'bulk_replay_status',
    {
      description:
        "A ticket's bulk replay with its progress (state running, cancelled or finished; done of total; succeeded, failed, skipped and why; the latest failures), " +
        'or without replay_id the latest 50, newest first.',
      inputSchema: { ticket_id: ticketId, replay_id: replayId.optional() },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () =>
        toolResultOf(
          args.replay_id === undefined
            ? await api('listBulkReplays', { params: { ticket_id: args.ticket_id } })
            : await api('getBulkReplay', { params: { ticket_id: args.ticket_id, replay_id: String(args.replay_id) } }),
        ),
      ),
  );

  server.registerTool(
    'cancel_bulk_replay',
    {
      description:
        'Cancel a running bulk replay between two entries: what already ran stays run. Answers the replay, cancelled; a replay that already ended is refused (409).',
      inputSchema: { ticket_id: ticketId, replay_id: replayId },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) => guarded(async () => toolResultOf(await api('cancelBulkReplay', { params: { ticket_id: args.ticket_id, replay_id: String(args.replay_id) } }))),
  );
}
