import type { Command } from 'commander';
import type { DeadLetter } from '../../../schemas/forward-rules';
import type { Ctx } from '../context';

type Context = (cmd: Command) => Ctx;

/** One dead letter as a line: when it failed (UTC, seconds), why, the last status or error, the sends, the caller and what. */
export function formatDeadLetter(item: DeadLetter): string {
  const at = new Date(item.failed_at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const last = item.status_code !== undefined ? `status=${item.status_code}` : `error=${item.error?.code ?? 'unknown'}`;
  return `${at}  ${item.reason}  ${last}  attempts=${item.attempts}  caller=${item.forward.caller}  ${item.what}  id=${item.id}`;
}

interface Options {
  caller?: string;
  reason?: string;
}

export function registerDeadLetters(program: Command, context: Context): void {
  program
    .command('dead-letters')
    .description('Dead letters (extension): queued forwarded requests sent with retry that failed after their last attempt, newest first, with why')
    .option('--caller <caller>', "only this caller's: a user id, visitor:<name> or owner:<owner id>")
    .option('--reason <reason>', 'only this reason: retry_window_ended, error_status, timeout or request_failed')
    .action(async (options: Options, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const list = await api.all<DeadLetter>(paths.deadLetters, { caller: options.caller, reason: options.reason });
      if (ctx.io.json) return ctx.io.printJson({ list });
      if (list.length === 0) return ctx.io.out('No dead letters.');
      for (const item of list) ctx.io.out(formatDeadLetter(item));
    });
}
