import type { Command } from 'commander';
import type { DeadLetter } from '../../../schemas/forward-rules';
import type { Ctx } from '../context';
import type { DeadLetterReplay } from '../../../schemas/listings';
import { EXIT_FAILED, usageError } from '../errors';

type Context = (cmd: Command) => Ctx;

/** Whose dead letter it is: the forwarding caller, or the ticket and its consumption. */
const ownerOf = (item: DeadLetter): string => (item.ticket ? `ticket=${item.ticket.ticket_id} at=${item.ticket.path}` : `caller=${item.forward?.caller ?? ''}`);

/** One dead letter as a line: when it failed (UTC, seconds), why, the last status or error, the attempts, whose and what. */
export function formatDeadLetter(item: DeadLetter): string {
  const at = new Date(item.failed_at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const last = item.status_code !== undefined ? `status=${item.status_code}` : `error=${item.error?.code ?? 'unknown'}`;
  return `${at}  ${item.reason}  ${last}  attempts=${item.attempts}  ${ownerOf(item)}  ${item.what}  id=${item.id}`;
}

/** What a dead letter's replay answered, as a line. */
export function formatDeadLetterReplay(answer: DeadLetterReplay): string {
  const how = answer.partial ? 'from its failed action' : 'whole';
  return answer.ok
    ? `Replayed ${answer.replay_of} ${how}: answered ${answer.status}; it is no longer a dead letter.`
    : `Replayed ${answer.replay_of} ${how}: failed again with ${answer.status} (${answer.error.code}: ${answer.error.message}); it stays a dead letter.`;
}

interface Options {
  caller?: string;
  reason?: string;
  ticket?: string;
  replay?: string;
  full?: boolean;
}

export function registerDeadLetters(program: Command, context: Context): void {
  program
    .command('dead-letters')
    .description(
      "Dead letters (extension): queued forwarded requests sent with retry that failed after their last attempt, or (--ticket) a ticket's runs whose retry_schedule ran out, newest first, with why",
    )
    .option('--caller <caller>', "only this caller's: a user id, visitor:<name> or owner:<owner id>")
    .option('--ticket <ticket_id>', "this ticket's dead letters instead of forwarding's")
    .option('--reason <reason>', 'only this reason: retry_window_ended, error_status, timeout or request_failed')
    .option('--replay <consume_id>', 'with --ticket: replay this dead letter now, from its failed action (exit 1 when it fails again)')
    .option('--full', 'with --replay: run the whole chain again, the actions that already succeeded included')
    .action(async (options: Options, cmd: Command) => {
      const ctx = context(cmd);
      if (options.ticket !== undefined && options.caller !== undefined) throw usageError('--caller applies to forwarding dead letters, not to --ticket.');
      if (options.replay !== undefined && options.ticket === undefined) throw usageError('--replay <consume_id> goes with --ticket <ticket_id>.');
      if (options.full && options.replay === undefined) throw usageError('--full goes with --replay <consume_id>.');
      const { api, paths } = await ctx.session();
      if (options.ticket !== undefined && options.replay !== undefined) {
        const path = `${paths.ticketDeadLetters(options.ticket)}/${encodeURIComponent(options.replay)}/replay`;
        const answer = await api.request<DeadLetterReplay>('POST', path, { body: options.full ? { full: true } : {} });
        if (ctx.io.json) ctx.io.printJson(answer);
        else ctx.io.out(formatDeadLetterReplay(answer));
        if (!answer.ok) process.exitCode = EXIT_FAILED;
        return;
      }
      const list = options.ticket
        ? await api.all<DeadLetter>(paths.ticketDeadLetters(options.ticket), { reason: options.reason })
        : await api.all<DeadLetter>(paths.deadLetters, { caller: options.caller, reason: options.reason });
      if (ctx.io.json) return ctx.io.printJson({ list });
      if (list.length === 0) return ctx.io.out('No dead letters.');
      for (const item of list) ctx.io.out(formatDeadLetter(item));
    });
}
