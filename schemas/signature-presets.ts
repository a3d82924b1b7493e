/**
 * Signature presets (issues 14 and 27): how each provider signs its webhooks, as data in one place
 * for registration (`condition.preset`), the MCP tool, the CLI and the dashboard. A preset is the
 * `signature` part of a ticket condition without its secretName (the owner names the Secret Key that
 * holds the provider's secret; for a provider that sends a shared token instead of a signature, the
 * Secret Key holds the token and the `token` algorithm compares it). It may carry the handshake the
 * provider sends before its first delivery (an extension of the spec, docs/signatures.md
 * "Handshakes"). Each preset is checked by a test that verifies a delivery signed the way the
 * provider does (test/signatures/presets.test.ts, provider-signers.ts says how per provider).
 *
 * Presets whose scheme signs the URL or uses public keys (Twilio, Square, HubSpot v3, Mailgun,
 * Discord, SendGrid, PayPal, Paddle Classic) live in signature-presets-extensions.ts.
 */
import type { SignatureConfig } from './ticket-types';
import { HMAC_PRESETS } from './signature-presets-hmac';
import { EXTENSION_PRESETS } from './signature-presets-extensions';
import { TOKEN_PRESETS } from './signature-presets-token';

/**
 * Handshakes a ticket can answer (condition.handshake; docs/signatures.md "Handshakes"): their
 * definitions are here; the server recognises and answers them in src/actions/handshake.ts.
 */
export const HANDSHAKES = ['slack', 'zoom', 'twitch', 'discord', 'msgraph'] as const;
export type Handshake = (typeof HANDSHAKES)[number];

/** Handshakes that Slack, Zoom and Twitch sign: answered only once the signature verified, so the ticket needs one (schemas/condition-preset.ts). */
export const SIGNED_HANDSHAKES: ReadonlySet<Handshake> = new Set(['slack', 'zoom', 'twitch']);

/** What each handshake is and what the ticket answers, for the listings. */
export const HANDSHAKE_NOTES: Record<Handshake, string> = {
  slack: "Slack Events API url_verification: after the signature verifies, answers { challenge } with the body's challenge.",
  zoom: 'Zoom endpoint.url_validation: after the signature verifies, answers { plainToken, encryptedToken } (HMAC-SHA256 of plainToken with the Secret Key, hex).',
  twitch: 'Twitch EventSub webhook_callback_verification: after the signature verifies, answers the challenge as raw text/plain.',
  discord: 'Discord interactions PING (type 1): after the signature verifies, answers { "type": 1 }.',
  msgraph: 'Microsoft Graph subscription validation: a POST with ?validationToken= is answered 200 text/plain with the token, decoded.',
};

export interface SignaturePreset {
  id: string;
  /** The provider's name, logo-free. */
  name: string;
  /** Where the provider documents it. */
  docs: string;
  /** What the Secret Key must hold. */
  secret: string;
  /** The signature part, secretName aside. Absent on a handshake-only preset (msgraph). */
  signature?: Omit<SignatureConfig, 'secretName'>;
  /** The handshake the provider sends before its first delivery, answered when condition.handshake is set. */
  handshake?: Handshake;
  /** What the preset does not check, if anything (for example freshness). */
  note?: string;
  /**
   * The provider's own event (or delivery) id, unchanged across its redeliveries, as a reference of the
   * request: the ticket's idempotency key when it uses the preset and names none (docs/api.md
   * "Idempotent consumption"). Absent where the provider documents no such id on every delivery.
   */
  idempotencyKey?: string;
}

/** Every preset: HMAC over the template, token (compared with a Secret Key), and those needing the extensions (URL, body fields, public keys). */
export const SIGNATURE_PRESETS: readonly SignaturePreset[] = [...HMAC_PRESETS, ...TOKEN_PRESETS, ...EXTENSION_PRESETS];

export function findPreset(id: string): SignaturePreset | undefined {
  return SIGNATURE_PRESETS.find((p) => p.id === id);
}

/** The message for a preset id that does not exist: names it and lists the known ids. */
export function unknownPresetMessage(id: string): string {
  return `no signature preset "${id}"; known presets: ${SIGNATURE_PRESETS.map((p) => p.id).join(', ')}`;
}

/** A preset's signature part with the Secret Key to verify with, ready for a ticket condition (undefined for a handshake-only preset or an unknown id). */
export function presetSignature(id: string, secretName: string): SignatureConfig | undefined {
  const preset = findPreset(id);
  return preset?.signature ? { secretName, ...preset.signature } : undefined;
}
