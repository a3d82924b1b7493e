import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { checkBody, type CheckAnswer } from '../check-body';
import type { Ctx } from '../context';
import { EXIT_FAILED, usageError } from '../errors';
import { registerApply } from './apply';

type Context = (cmd: Command) => Ctx;

/** A ticket as the owner listing and GET …/tickets/{id} show it. */
interface TicketView {
  ticket_id: string;
  description?: string;
  count?: number;
  registered_count?: number | null;
  updated?: number;
  legacy?: boolean;
  [field: string]: unknown;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}

export function registerTickets(program: Command, context: Context): void {
  const tickets = program.command('tickets').description('List, read, delete, dry-run and apply tickets');

  tickets
    .command('list')
    .description('List every ticket of the project (all pages)')
    .action(async (_options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const list = await api.all<TicketView>(paths.tickets);
      if (ctx.io.json) return ctx.io.printJson({ list });
      if (list.length === 0) return ctx.io.out('No tickets.');
      const rows = list.map((t) => [
        t.ticket_id,
        t.count === undefined ? 'unlimited' : String(t.count),
        t.updated ? new Date(t.updated).toISOString() : '',
        `${t.description ?? ''}${t.legacy ? ' (legacy)' : ''}`,
      ]);
      const [head, ...body] = table([['TICKET', 'REMAINING', 'UPDATED', 'DESCRIPTION'], ...rows]);
      ctx.io.out(ctx.io.color.bold(head));
      for (const line of body) ctx.io.out(line);
    });

  tickets
    .command('get <ticket_id>')
    .description('Show one ticket as the owner sees it')
    .action(async (ticketId: string, _options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const ticket = await api.request<TicketView>('GET', paths.ticket(ticketId));
      if (ctx.io.json) return ctx.io.printJson(ticket);
      const registered = ticket.registered_count === null || ticket.registered_count === undefined ? 'unlimited' : String(ticket.registered_count);
      ctx.io.out(ctx.io.color.bold(`ticket ${ticket.ticket_id}`) + (ticket.legacy ? ' (legacy)' : ''));
      ctx.io.out(`remaining: ${ticket.count ?? 'unlimited'} of ${registered}`);
      if (ticket.updated) ctx.io.out(`updated:   ${new Date(ticket.updated).toISOString()}`);
      ctx.io.out(JSON.stringify(ticket, null, 2));
    });

  tickets
    .command('delete <ticket_id>')
    .description('Delete a ticket and its per-user counters (its log stays)')
    .action(async (ticketId: string, _options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const answer = await api.request<unknown>('DELETE', paths.ticket(ticketId));
      if (ctx.io.json) ctx.io.printJson(answer);
      else ctx.io.out(`Deleted ticket ${ticketId}.`);
    });

  tickets
    .command('check <ticket_id>')
    .description('Dry-run a ticket against a sample request: the whole condition, no action, no count used (exit 1 when it does not pass)')
    .option('--data <text>', 'the request body, sent as the raw body text exactly as given')
    .option('--data-file <file>', 'the request body from a file, byte for byte')
    .option('--method <method>', 'GET or POST (default POST)')
    .option('--header <name:value>', 'a request header (repeatable)', collect)
    .option('--query <name=value>', 'a query parameter (repeatable; a repeated name makes a list)', collect)
    .option('--user <user_id>', 'consume as this project user (as on /tpa)')
    .option('--ip <address>', 'the caller IP address (default 127.0.0.1)')
    .action(
      async (
        ticketId: string,
        options: { data?: string; dataFile?: string; method?: string; header?: string[]; query?: string[]; user?: string; ip?: string },
        cmd: Command,
      ) => {
        const ctx = context(cmd);
        if (options.data !== undefined && options.dataFile !== undefined) throw usageError('Pass --data or --data-file, not both.');
        let data = options.data;
        if (options.dataFile !== undefined) {
          try {
            data = await readFile(options.dataFile, 'utf8');
          } catch (err) {
            throw usageError(`Cannot read --data-file ${options.dataFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
          }
        }
        const body = checkBody({ ...options, data });
        const { api, paths } = await ctx.session();
        const answer = await api.request<CheckAnswer>('POST', paths.check(ticketId), { body });
        if (ctx.io.json) ctx.io.printJson(answer);
        else if (answer.passed) ctx.io.out(`${ctx.io.color.green('passed')}  ${answer.message}`);
        else ctx.io.out(`${ctx.io.color.red('failed')}  ${answer.status} at ${answer.error.stage}  ${answer.error.code}: ${answer.error.message}`);
        if (!answer.passed) process.exitCode = EXIT_FAILED;
      },
    );

  registerApply(tickets, context);
}
