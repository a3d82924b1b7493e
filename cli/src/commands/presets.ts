import type { Command } from 'commander';
import { SIGNATURE_PRESETS, presetSignature } from '../../../schemas/signature-presets';
import type { Ctx } from '../context';
import { usageError } from '../errors';

type Context = (cmd: Command) => Ctx;

export function registerPresets(program: Command, context: Context): void {
  program
    .command('presets [id]')
    .description("Signature presets (Stripe, GitHub, Slack, …): a ticket condition's `signature` for each provider")
    .option('--secret-name <name>', "with an id: print the preset's signature block ready for a condition, verifying with this Secret Key")
    .action((id: string | undefined, options: { secretName?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const presets = id === undefined ? SIGNATURE_PRESETS : SIGNATURE_PRESETS.filter((p) => p.id === id);
      if (presets.length === 0) throw usageError(`No preset "${id}": one of ${SIGNATURE_PRESETS.map((p) => p.id).join(', ')}.`);
      if (options.secretName !== undefined) {
        if (id === undefined) throw usageError('--secret-name needs a preset id: svc presets <id> --secret-name <name>.');
        const signature = presetSignature(id, options.secretName);
        return ctx.io.json ? ctx.io.printJson({ signature }) : ctx.io.out(JSON.stringify({ signature }, null, 2));
      }
      if (ctx.io.json) return ctx.io.printJson(id === undefined ? presets : presets[0]);
      for (const preset of presets) {
        ctx.io.out(`${ctx.io.color.bold(preset.id)}  ${preset.name}`);
        ctx.io.out(`    header: ${preset.signature.header}   secret: ${preset.secret}`);
        ctx.io.out(ctx.io.color.dim(`    ${preset.docs}`));
        if (id !== undefined) ctx.io.out(JSON.stringify({ signature: { secretName: '<your secret key name>', ...preset.signature } }, null, 2));
      }
    });
}
