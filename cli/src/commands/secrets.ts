import type { Command } from 'commander';
import type { Ctx } from '../context';
import { usageError } from '../errors';
import { readSecret } from '../prompt';

type Context = (cmd: Command) => Ctx;

/** A secret key as the service lists it: never its value. */
interface SecretKeyInfo {
  name: string;
  destinations: string[];
  access_group: number;
  locked: boolean;
  updated?: number;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerSecrets(program: Command, context: Context): void {
  const secrets = program.command('secrets').description('Secret keys: put (value from stdin), list (names, never values), delete');

  secrets
    .command('put <name>')
    .description('Create or replace a secret key; its value is read from stdin (a hidden prompt on a terminal), never an argument')
    .option('--destination <url>', 'a url the key may be sent to (repeatable)', collect)
    .option('--access-group <n>', 'the access group a signed-in caller needs (0 to 99)')
    .option('--locked', 'only signed-in callers whose access group reaches the key may use it')
    .action(async (name: string, options: { destination?: string[]; accessGroup?: string; locked?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const body: Record<string, unknown> = {};
      if (options.destination?.length) body.destinations = options.destination;
      if (options.accessGroup !== undefined) {
        const group = /^\d{1,2}$/.test(options.accessGroup) ? Number(options.accessGroup) : NaN;
        if (Number.isNaN(group)) throw usageError(`--access-group must be a whole number from 0 to 99, not "${options.accessGroup}".`);
        body.access_group = group;
      }
      if (options.locked) body.locked = true;
      const session = await ctx.session();
      const value = await readSecret(ctx.rt.stdin, ctx.rt.stderr, `Value of ${name}: `, 'secret value');
      ctx.io.mask(value);
      const info = await session.api.request<SecretKeyInfo>('PUT', session.paths.secret(name), { body: { value, ...body } });
      if (ctx.io.json) ctx.io.printJson(info);
      else ctx.io.out(`Stored secret key ${info.name ?? name}${info.locked ? ' (locked)' : ''}.`);
    });

  secrets
    .command('list')
    .description('List the secret keys: names and settings, never values')
    .action(async (_options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const { list } = await api.request<{ list: SecretKeyInfo[] }>('GET', paths.secrets);
      if (ctx.io.json) return ctx.io.printJson({ list });
      if (list.length === 0) return ctx.io.out('No secret keys.');
      for (const key of list) {
        const settings = [`access_group=${key.access_group}`, key.locked ? 'locked' : 'unlocked'];
        if (key.destinations.length) settings.push(`destinations=${key.destinations.join(',')}`);
        ctx.io.out(`${ctx.io.color.bold(key.name)}  ${settings.join('  ')}`);
      }
    });

  secrets
    .command('delete <name>')
    .description('Delete a secret key')
    .action(async (name: string, _options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { api, paths } = await ctx.session();
      const answer = await api.request<unknown>('DELETE', paths.secret(name));
      if (ctx.io.json) ctx.io.printJson(answer);
      else ctx.io.out(`Deleted secret key ${name}.`);
    });
}
