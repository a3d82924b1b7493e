import type { Command } from 'commander';
import { Api } from '../api';
import { normalizeBaseUrl, parseConfigFile } from '../config';
import { readConfigText, removeConfig, writeConfig } from '../config-file';
import type { Ctx, OwnerProject } from '../context';
import { usageError } from '../errors';
import { readSecret } from '../prompt';

type Context = (cmd: Command) => Ctx;

/** The base url: --url, else SVC_URL, else the one of the current config file. */
async function baseUrlFor(ctx: Ctx, flag: string | undefined): Promise<string> {
  if (flag) return normalizeBaseUrl(flag);
  if (ctx.rt.env.SVC_URL) return normalizeBaseUrl(ctx.rt.env.SVC_URL);
  const text = await readConfigText(ctx.configFile);
  if (text !== null) return normalizeBaseUrl(parseConfigFile(text, ctx.configFile).url);
  throw usageError('No base url: pass --url <base url> (for example --url http://127.0.0.1:8787).');
}

export function registerLogin(program: Command, context: Context): void {
  program
    .command('login')
    .description('Check an owner key (read from stdin) and store it with the base url in the config file (mode 0600)')
    .option('--url <base url>', 'the service, e.g. https://svc-gateway.example.workers.dev (default: SVC_URL or the stored url)')
    .action(async (options: { url?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const url = await baseUrlFor(ctx, options.url);
      const key = await readSecret(ctx.rt.stdin, ctx.rt.stderr, 'Owner key (ok_…): ', 'owner key');
      ctx.io.mask(key);
      const owner = await new Api(url, key.trim()).request<OwnerProject>('GET', '/v1/owner');
      await writeConfig(ctx.configFile, { url, owner_key: key.trim(), service_id: owner.service_id });
      if (ctx.io.json) ctx.io.printJson({ url, service_id: owner.service_id, name: owner.name, active: owner.active, config: ctx.configFile });
      else {
        ctx.io.out(`Logged in to ${url}: project "${owner.name}" (${owner.service_id})${owner.active ? '' : ', which is inactive'}.`);
        ctx.io.out(ctx.io.color.dim(`Stored in ${ctx.configFile} (mode 0600).`));
      }
    });

  program
    .command('logout')
    .description('Remove the config file')
    .action(async (_options: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const removed = await removeConfig(ctx.configFile);
      if (ctx.io.json) ctx.io.printJson({ removed, config: ctx.configFile });
      else ctx.io.out(removed ? `Logged out: removed ${ctx.configFile}.` : `Not logged in: there is no ${ctx.configFile}.`);
    });
}
