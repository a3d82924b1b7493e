import type { Command } from 'commander';
import type { BulkReplay, BulkReplayStart } from '../../../schemas/listings';
import type { Ctx } from '../context';
import { usageError } from '../errors';
import { formatReplay, replayRequest, type ReplayOptions } from '../replay-format';

type Context = (cmd: Command) => Ctx;

interface Options extends ReplayOptions {
  status?: string | boolean;
  cancel?: string;
}

const FILTER_FLAGS: [keyof ReplayOptions, string][] = [
  ['deadLetters', '--dead-letters'],
  ['from', '--from'],
  ['to', '--to'],
  ['outcome', '--outcome'],
  ['code', '--code'],
  ['ids', '--ids'],
  ['perMinute', '--per-minute'],
  ['full', '--full'],
  ['dryRun', '--dry-run'],
];

function replayId(raw: string, flag: string): string {
  if (!/^\d{1,15}$/.test(raw)) throw usageError(`${flag} takes a replay id (a whole number), not "${raw}".`);
  return raw;
}

export function registerReplay(program: Command, context: Context): void {
  program
    .command('replay <ticket_id>')
    .description(
      "Bulk replay (extension): replay a ticket's consumptions by filter (its failed ones by default, or --dead-letters), oldest first, in the background; " +
        '--dry-run counts them; --status follows, --cancel stops. Actions that succeeded run again only with --full',
    )
    .option('--dead-letters', "the ticket's dead letters instead of its log")
    .option('--from <time>', 'logged (with --dead-letters: failed) at or after: ms since the epoch or an ISO date')
    .option('--to <time>', 'logged (or failed) at or before: ms since the epoch or an ISO date')
    .option('--outcome <outcome>', 'failed (default), ok or any')
    .option('--code <code>', 'only failed consumptions with this error code, e.g. REQUEST_FAILED')
    .option('--ids <consume_ids>', 'only these consumptions, comma-separated')
    .option('--per-minute <n>', 'entries replayed a minute, 1 to 600 (default 60)')
    .option('--full', 'run whole chains again, the actions that already succeeded included')
    .option('--dry-run', 'only count what the filter matches')
    .option('--status [replay_id]', "the replay's progress, or without an id the latest replays")
    .option('--cancel <replay_id>', 'cancel a running replay (what ran stays run)')
    .action(async (ticketId: string, options: Options, cmd: Command) => {
      const ctx = context(cmd);
      if (options.status !== undefined || options.cancel !== undefined) {
        const given = FILTER_FLAGS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
        if (options.status !== undefined && options.cancel !== undefined) throw usageError('Pass --status or --cancel, not both.');
        if (given.length > 0) throw usageError(`Options that start a replay (${given.join(', ')}) do not go with --status or --cancel.`);
      }
      const statusId = typeof options.status === 'string' ? replayId(options.status, '--status') : undefined;
      const cancelId = options.cancel === undefined ? undefined : replayId(options.cancel, '--cancel');
      const body = options.status === undefined && cancelId === undefined ? replayRequest(options) : undefined;
      const { api, paths } = await ctx.session();

      if (options.status === true) {
        const answer = await api.request<{ list: BulkReplay[] }>('GET', paths.replays(ticketId));
        if (ctx.io.json) return ctx.io.printJson(answer);
        if (answer.list.length === 0) return ctx.io.out(`No bulk replays of ${ticketId}.`);
        for (const replay of answer.list) ctx.io.out(formatReplay(replay));
        return;
      }
      if (statusId !== undefined || cancelId !== undefined) {
        const replay =
          cancelId !== undefined
            ? await api.request<BulkReplay>('POST', `${paths.replays(ticketId)}/${cancelId}/cancel`, { body: {} })
            : await api.request<BulkReplay>('GET', `${paths.replays(ticketId)}/${statusId}`);
        if (ctx.io.json) return ctx.io.printJson(replay);
        ctx.io.out(formatReplay(replay));
        for (const failed of replay.progress.failures) ctx.io.out(`  failed ${failed.consume_id}  ${failed.code}`);
        return;
      }
      const answer = await api.request<BulkReplayStart>('POST', paths.replays(ticketId), { body });
      if (ctx.io.json) return ctx.io.printJson(answer);
      if (answer.dry_run) {
        const unindexed = answer.unindexed > 0 ? ` (${answer.unindexed} logged before codes were indexed, judged by their code when read)` : '';
        return ctx.io.out(`${answer.matched} ${answer.matched === 1 ? 'entry matches' : 'entries match'}${unindexed}; a replay takes at most ${answer.limit}.`);
      }
      ctx.io.out(formatReplay(answer.replay));
    });
}
