import type { Command } from 'commander';
import type { Ctx, Session } from '../context';
import { CliError, ServiceError, usageError } from '../errors';
import { formatActionRow, formatFloodMinute, formatLogRow, type ActionRow, type FloodMinute } from '../logs-format';
import { formatSignatureDiagnosis, type SignatureDiagnosis } from '../signature-format';
import { emptyFollowState, nextFrom, takeNew, type LogRow } from '../logs-follow';

type Context = (cmd: Command) => Ctx;

interface LogsOptions {
  follow?: boolean;
  interval: string;
  limit: string;
  consumption?: string;
  signature?: string;
  secretName?: string;
}

function wholeNumber(raw: string, flag: string, min: number, max: number): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw usageError(`${flag} must be a whole number from ${min} to ${max}, not "${raw}".`);
  return n;
}

/** Resolves after `ms`, or at once when the signal aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export function registerLogs(program: Command, context: Context): void {
  program
    .command('logs <ticket_id>')
    .description(
      "Print a ticket's newest consumptions (oldest first), after the minutes of the last hour it was limited; --follow keeps printing new ones until Ctrl+C",
    )
    .option('-f, --follow', 'keep polling and print new consumptions as they arrive')
    .option('--interval <ms>', 'time between polls with --follow', '2000')
    .option('--limit <n>', 'how many of the newest consumptions to print first (1 to 100)', '20')
    .option('--consumption <consume_id>', "print one consumption's action rows instead")
    .option('--signature <consume_id>', "why did this consumption's signature fail? its kept request checked again, and the presets that verify it")
    .option('--secret-name <name>', "with --signature: the Secret Key to check and infer the preset with (default: the ticket signature's)")
    .action(async (ticketId: string, options: LogsOptions, cmd: Command) => {
      const ctx = context(cmd);
      const interval = wholeNumber(options.interval, '--interval', 100, 3_600_000);
      const limit = wholeNumber(options.limit, '--limit', 1, 100);
      const session = await ctx.session();
      const show = (row: LogRow) => (ctx.io.json ? ctx.io.out(JSON.stringify(row)) : ctx.io.out(formatLogRow(row, ctx.io.color)));

      if (options.consumption !== undefined) return printActions(ctx, session, ticketId, options.consumption);
      if (options.signature !== undefined) {
        const body = options.secretName === undefined ? {} : { secretName: options.secretName };
        const diagnosis = await session.api.request<SignatureDiagnosis>('POST', session.paths.signature(ticketId, options.signature), { body });
        return ctx.io.json ? ctx.io.printJson(diagnosis) : formatSignatureDiagnosis(diagnosis, ctx.io.color).forEach((line) => ctx.io.out(line));
      }
      if (options.secretName !== undefined) throw usageError('--secret-name goes with --signature <consume_id>.');

      const first = await session.api.request<{ list: LogRow[] }>('GET', session.paths.tickets, { query: { ticket_id: `#${ticketId}#`, limit } });
      // The minutes the ticket was limited in the last hour, above the log (not in --json, whose lines are log rows).
      const flood = new Map<number, string>();
      const showFlood = async () => {
        if (ctx.io.json) return;
        const { minutes } = await session.api.request<{ minutes: FloodMinute[] }>('GET', session.paths.flood(ticketId));
        for (const m of minutes) {
          const line = formatFloodMinute(m, ctx.io.color);
          if (flood.get(m.minute) !== line) ctx.io.out(line);
          flood.set(m.minute, line);
        }
      };
      await showFlood();
      let { rows, state } = takeNew(emptyFollowState(), first.list);
      rows.forEach(show);
      if (!options.follow) {
        if (rows.length === 0 && !ctx.io.json) ctx.io.out(`No consumptions of ${ticketId} logged.`);
        return;
      }
      if (!ctx.io.json) ctx.rt.stderr.write(ctx.io.color.dim(`Following ${ticketId} every ${interval} ms; Ctrl+C to stop.\n`));
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        while (!stop.signal.aborted) {
          await pause(interval, stop.signal);
          if (stop.signal.aborted) break;
          try {
            const polled = await session.api.all<LogRow>(session.paths.tickets, { ticket_id: `#${ticketId}#`, from: nextFrom(state) });
            ({ rows, state } = takeNew(state, polled));
            rows.forEach(show);
            await showFlood();
          } catch (err) {
            // A refusal is final; a connection that dropped may come back: say so and keep polling.
            if (err instanceof ServiceError || !(err instanceof CliError)) throw err;
            ctx.io.err(`svc: ${err.message} Retrying.`);
          }
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

async function printActions(ctx: Ctx, session: Session, ticketId: string, consumeId: string) {
  const rows = await session.api.all<ActionRow>(session.paths.tickets, { ticket_id: `@${ticketId}#${consumeId}#` });
  for (const row of rows) {
    if (ctx.io.json) ctx.io.out(JSON.stringify(row));
    else for (const line of formatActionRow(row, ctx.io.color)) ctx.io.out(line);
  }
  if (rows.length === 0 && !ctx.io.json) ctx.io.out(`No action rows for consumption ${consumeId} of ${ticketId}.`);
}
