/**
 * `condition.preset` and `condition.handshake` (extensions, docs/signatures.md): a provider preset
 * named at registration is expanded into the condition's signature and handshake; the stored ticket
 * holds the expansion, never the preset id. Token presets (GitLab, Postmark) name a Secret Key like
 * any other: the token is never written into the condition.
 */
import * as z from 'zod';
import type { ConditionInput } from './condition';
import { childPath, invalidField } from './paths';
import { findPreset, type Handshake, SIGNED_HANDSHAKES, unknownPresetMessage } from './signature-presets';
import { strictObject } from './strict';
import type { TicketCondition } from './ticket-types';

export const presetReferenceSchema = strictObject({
  id: z.string().min(1).describe('A preset id, e.g. stripe (list_signature_presets, svc presets).'),
  secretName: z.string().min(1).optional().describe('Signature presets: the Secret Key that holds the provider secret.'),
  token: z
    .string()
    .min(1)
    .optional()
    .describe('No longer taken: token presets (gitlab, postmark) name the Secret Key holding the token with secretName; refused with that message.'),
});

/** The condition with its preset expanded; a clear INVALID_PARAMETER naming the field otherwise. */
export function applyPreset(input: ConditionInput, path: string): ConditionInput {
  const reference = input.preset!;
  const at = childPath(path, 'preset');
  const preset = findPreset(reference.id);
  if (!preset) throw invalidField(childPath(at, 'id'), unknownPresetMessage(reference.id));
  const expanded: ConditionInput = { ...input, preset: undefined };
  // The message never repeats the token.
  if (reference.token !== undefined) {
    throw invalidField(
      childPath(at, 'token'),
      preset.signature
        ? `is not taken: store it as a Secret Key and name that key with secretName (the Secret Key holds ${preset.secret})`
        : `the ${preset.id} preset takes no token`,
    );
  }
  if (preset.signature) {
    if (input.signature) throw invalidField(at, 'give either preset or signature, not both');
    if (!reference.secretName) throw invalidField(childPath(at, 'secretName'), `is required: the name of the Secret Key that holds ${preset.secret}`);
    expanded.signature = { secretName: reference.secretName, ...preset.signature };
  } else if (reference.secretName) {
    throw invalidField(childPath(at, 'secretName'), `the ${preset.id} preset verifies no signature, so it takes no Secret Key`);
  }
  if (preset.handshake && input.handshake === undefined) expanded.handshake = preset.handshake;
  return expanded;
}

/** A handshake needs a POST, and a signed one (SIGNED_HANDSHAKES) a signature to verify before it is answered. */
export function checkHandshake(handshake: Handshake, condition: TicketCondition, path: string): Handshake {
  const at = childPath(path, 'handshake');
  if (condition.method === 'GET') throw invalidField(at, 'every handshake arrives as a POST: remove method GET');
  if (SIGNED_HANDSHAKES.has(handshake) && !condition.signature) {
    throw invalidField(at, `the ${handshake} handshake is answered only after its signature verifies: add the ${handshake} preset or a signature`);
  }
  return handshake;
}
