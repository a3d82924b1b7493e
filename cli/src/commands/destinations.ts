import type { Command } from 'commander';
import type { PausedDestinations } from '../../../schemas/forward-rules';
import type { Ctx } from '../context';

type Context = (cmd: Command) => Ctx;

type Paused = PausedDestinations['list'][number];

/** One paused destination as a line: origin, state, caller (or the ticket whose runs it holds), failures, since and the next probe (UTC, seconds). */
export function formatPausedDestination(item: Paused): string {
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const probe = item.state === 'open' ? `next probe ${at(item.next_probe_at)}` : `probe out until ${at(item.next_probe_at)}`;
  const holder = item.ticket !== undefined ? `ticket=${item.ticket}` : `caller=${item.caller}`;
  return `${item.origin}  ${item.state}  ${holder}  failures=${item.failures}  since ${at(item.since)}  ${probe}`;
}

export function registerDestinations(program: Command, context: Context): void {
  program
    .command('destinations')
    .description(
      "Paused destinations (extension): origins whose circuit opened after repeated failures; queued requests sent with retry to them, and a ticket's runs with a retry_schedule, wait",
    )
    .action(async (_options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const answer = await api.request<PausedDestinations>('GET', paths.destinations);
      if (ctx.io.json) return ctx.io.printJson(answer);
      if (answer.list.length === 0) return ctx.io.out('No paused destinations.');
      for (const item of answer.list) ctx.io.out(formatPausedDestination(item));
    });
}
