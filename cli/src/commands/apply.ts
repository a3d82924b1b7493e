import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { Ctx, Session } from '../context';
import { CliError, ServiceError, failure, usageError, type Problem } from '../errors';
import { hasChanges, planJson, pruned, type PlanAnswer, type PlanStep } from '../plan/plan';
import { renderPlan } from '../plan/render';
import { duplicateIds, parseTicketFile, type TicketFile } from '../plan/ticket-files';
import { confirm } from '../prompt';

type Context = (cmd: Command) => Ctx;

interface ApplyOptions {
  dryRun?: boolean;
  prune?: boolean;
  yes?: boolean;
}

/** The `*.json` files the arguments name: a folder's own files (not its sub-folders), in name order. */
async function ticketFilesOf(args: string[]): Promise<{ files: string[]; problems: Problem[] }> {
  const files: string[] = [];
  const problems: Problem[] = [];
  for (const arg of args) {
    let info;
    try {
      info = await stat(arg);
    } catch {
      problems.push({ where: arg, message: 'no such file or folder.' });
      continue;
    }
    if (!info.isDirectory()) files.push(arg);
    else {
      const names = (await readdir(arg, { withFileTypes: true })).filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.json')).map((e) => e.name);
      files.push(...names.sort().map((name) => path.join(arg, name)));
    }
  }
  return { files: [...new Set(files)], problems };
}

/** Every file read and checked before anything is asked of the service: any problem is a usage error. */
async function readTicketFiles(args: string[]): Promise<TicketFile[]> {
  const { files, problems } = await ticketFilesOf(args);
  const tickets: TicketFile[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      problems.push({ where: file, message: `cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).` });
      continue;
    }
    const parsed = parseTicketFile(file, text);
    if (parsed.ok) tickets.push(parsed.ticket);
    else problems.push(parsed.problem);
  }
  problems.push(...duplicateIds(tickets));
  if (problems.length)
    throw usageError(`The ticket files have ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; nothing was applied.`, problems);
  if (tickets.length === 0) throw usageError(`No ticket files (*.json) in ${args.join(', ')}.`);
  return tickets;
}

/** At most `width` calls at a time, answers in the order of `items`. */
async function inPool<T, R>(items: readonly T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** Each ticket planned by the registry's own validation (nothing stored); any refusal refuses the whole plan. */
async function planAll(session: Session, tickets: TicketFile[], prune: boolean): Promise<PlanStep[]> {
  const problems: Problem[] = [];
  const answers = await inPool(tickets, 4, async (ticket) => {
    try {
      return await session.api.request<PlanAnswer>('POST', session.paths.plan(ticket.ticketId), { body: ticket.body });
    } catch (err) {
      // A refusal of this ticket (400) is the file's problem; a refused key or a failing service is everyone's.
      if (!(err instanceof ServiceError) || err.status !== 400) throw err;
      problems.push({ where: ticket.file, code: err.serviceCode, message: err.serviceMessage });
      return null;
    }
  });
  if (problems.length) {
    const order = new Map(tickets.map((t, i) => [t.file, i]));
    problems.sort((a, b) => (order.get(a.where) ?? 0) - (order.get(b.where) ?? 0));
    throw failure(`The service refused ${problems.length === 1 ? 'a ticket' : `${problems.length} tickets`}; nothing was applied.`, problems);
  }
  const steps: PlanStep[] = tickets.map((ticket, i) => {
    const answer = answers[i]!;
    return { change: answer.change, ticket_id: ticket.ticketId, file: ticket.file, current: answer.current, proposed: answer.proposed };
  });
  if (prune) {
    const onServer = await session.api.all<{ ticket_id: string }>(session.paths.tickets);
    const byId = new Map(onServer.map((t) => [t.ticket_id, t]));
    for (const id of pruned(
      [...byId.keys()],
      tickets.map((t) => t.ticketId),
    )) {
      steps.push({ change: 'delete', ticket_id: id, file: null, current: byId.get(id), proposed: null });
    }
  }
  return steps;
}

/** Creates and changes in file order, then the deletions; stops at the first refusal and says what was done. */
async function applySteps(ctx: Ctx, session: Session, steps: PlanStep[], tickets: TicketFile[]) {
  const bodies = new Map(tickets.map((t) => [t.ticketId, t.body]));
  const applied: { ticket_id: string; change: PlanStep['change'] }[] = [];
  for (const step of steps) {
    if (step.change === 'none') continue;
    try {
      if (step.change === 'delete') await session.api.request('DELETE', session.paths.ticket(step.ticket_id));
      else await session.api.request('PUT', session.paths.ticket(step.ticket_id), { body: bodies.get(step.ticket_id) });
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const done = applied.length ? `applied before it: ${applied.map((a) => `${a.change} ${a.ticket_id}`).join(', ')}` : 'nothing was applied';
      throw failure(
        `Applying stopped at ${step.ticket_id} (${done}).`,
        [{ where: step.file ?? step.ticket_id, code: err.code, message: err instanceof ServiceError ? err.serviceMessage : err.message }],
        err.code,
      );
    }
    applied.push({ ticket_id: step.ticket_id, change: step.change });
    if (!ctx.io.json) ctx.io.out(`${{ create: 'created', update: 'changed', delete: 'deleted' }[step.change]} ${step.ticket_id}`);
  }
  return applied;
}

export function registerApply(tickets: Command, context: Context): void {
  tickets
    .command('apply <paths...>')
    .description('Tickets as code: plan every *.json file (one ticket each; id = its ticket_id, else the file name), show the plan, then apply it')
    .option('--dry-run', 'show the plan only')
    .option('--prune', 'also delete the tickets of the project that no file names')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .action(async (args: string[], options: ApplyOptions, cmd: Command) => {
      const ctx = context(cmd);
      const files = await readTicketFiles(args);
      const session = await ctx.session();
      const steps = await planAll(session, files, options.prune === true);
      if (!ctx.io.json) for (const line of renderPlan(steps, ctx.io.color)) ctx.io.out(line);
      let applied: Awaited<ReturnType<typeof applySteps>> = [];
      if (!options.dryRun && hasChanges(steps)) {
        if (ctx.io.interactive && !options.yes && !(await confirm(ctx.rt.stdin, ctx.rt.stderr, 'Apply this plan?'))) {
          throw failure('Cancelled: nothing was applied.');
        }
        applied = await applySteps(ctx, session, steps, files);
      }
      if (ctx.io.json) return ctx.io.printJson({ dry_run: options.dryRun === true, plan: planJson(steps), applied });
      if (options.dryRun) ctx.io.out(ctx.io.color.dim('Dry run: nothing was applied.'));
      else if (!hasChanges(steps)) ctx.io.out('Nothing to apply.');
      else ctx.io.out(`Applied ${applied.length} change${applied.length === 1 ? '' : 's'}.`);
    });
}
