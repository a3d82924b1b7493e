import type { Command } from 'commander';
import {
  HANDSHAKE_NOTES,
  SIGNATURE_PRESETS,
  findPreset,
  presetSignature,
  unknownPresetMessage,
  type SignaturePreset,
} from '../../../schemas/signature-presets';
import type { Ctx } from '../context';
import { usageError } from '../errors';

type Context = (cmd: Command) => Ctx;

/** The condition parts a preset sets: its signature (a token preset's too) and its handshake. */
function conditionOf(preset: SignaturePreset, secretName: string): Record<string, unknown> {
  const condition: Record<string, unknown> = {};
  if (preset.signature) condition.signature = { secretName, ...preset.signature };
  if (preset.handshake) condition.handshake = preset.handshake;
  return condition;
}

export function registerPresets(program: Command, context: Context): void {
  program
    .command('presets [id]')
    .description("Signature presets (Stripe, GitHub, Slack, Svix, Zoom, …): a ticket condition's `signature` (and handshake) for each provider")
    .option('--secret-name <name>', "with an id: print the preset's condition parts ready to paste, verifying with this Secret Key")
    .action((id: string | undefined, options: { secretName?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const presets = id === undefined ? SIGNATURE_PRESETS : SIGNATURE_PRESETS.filter((p) => p.id === id);
      if (id !== undefined && presets.length === 0) throw usageError(`${unknownPresetMessage(id)}.`.replace(/^no/, 'No'));
      if (options.secretName !== undefined) {
        if (id === undefined) throw usageError('--secret-name needs a preset id: svc presets <id> --secret-name <name>.');
        const preset = findPreset(id)!;
        if (!preset.signature)
          throw usageError(`The ${id} preset verifies no signature, so it takes no Secret Key: register it with condition.preset { "id": "${id}" }.`);
        const condition = { signature: presetSignature(id, options.secretName), ...(preset.handshake ? { handshake: preset.handshake } : {}) };
        return ctx.io.json ? ctx.io.printJson(condition) : ctx.io.out(JSON.stringify(condition, null, 2));
      }
      if (ctx.io.json) return ctx.io.printJson(id === undefined ? presets : presets[0]);
      for (const preset of presets) {
        ctx.io.out(`${ctx.io.color.bold(preset.id)}  ${preset.name}`);
        const header = preset.signature?.header;
        ctx.io.out(`    ${header ? `header: ${header}   ` : ''}key: ${preset.secret}`);
        if (preset.handshake) ctx.io.out(`    handshake: ${HANDSHAKE_NOTES[preset.handshake]}`);
        if (preset.note) ctx.io.out(`    note: ${preset.note}`);
        if (preset.idempotencyKey) ctx.io.out(`    idempotency key (default): ${preset.idempotencyKey}`);
        ctx.io.out(ctx.io.color.dim(`    ${preset.docs}`));
        if (id !== undefined) ctx.io.out(JSON.stringify(conditionOf(preset, '<your secret key name>'), null, 2));
      }
    });
}
