/**
 * "Why did my signature fail?" (issue 27 item 5): a kept request checked again against a signature
 * config, with what the check found at each step, and the presets whose scheme verifies it with the
 * same key (scheme inference). Pure apart from crypto.subtle. Never reports the secret, the expected
 * signature or the signature the request carried: only lengths, counts, and a SHA-256 of the signed
 * bytes (public data of the request, never keyed).
 */
import { SIGNATURE_PRESETS, type SignaturePreset } from '../../schemas/signature-presets';
import type { SignatureConfig } from '../../schemas/ticket-types';
import type { SignatureTrace } from '../../schemas/signature';
import { verifySignature, type SignedRequest } from './signature';

export interface SignatureDiagnosis {
  /** The config checked (the ticket's), without secrets: it never holds one. */
  config: SignatureConfig;
  verified: boolean;
  /** The first reason the check failed, or 'verified'. */
  result: string;
  trace: SignatureTrace;
}

/** The config checked against the request as it arrived (`atMs`), step by step. */
export async function diagnoseSignature(config: SignatureConfig, request: SignedRequest, secret: string, atMs: number): Promise<SignatureDiagnosis> {
  const trace: SignatureTrace = {};
  const verified = await verifySignature(config, request, secret, atMs, new Map(), trace);
  const { result = verified ? 'verified' : 'not verified', ...steps } = trace;
  return { config, verified, result, trace: steps };
}

/**
 * The presets whose scheme verifies this request with this secret, judged at `atMs` (scheme
 * inference); `publicUrl` (the ticket's) stands for the URL a preset that signs it reads.
 */
export async function matchingPresets(
  request: SignedRequest,
  secret: string,
  atMs: number,
  publicUrl?: string,
  presets: readonly SignaturePreset[] = SIGNATURE_PRESETS,
): Promise<{ id: string; name: string }[]> {
  const keys = new Map();
  const matches: { id: string; name: string }[] = [];
  for (const preset of presets) {
    const config = { secretName: '', ...preset.signature, ...(publicUrl ? { public_url: publicUrl } : {}) } as SignatureConfig;
    if (await verifySignature(config, request, secret, atMs, keys)) matches.push({ id: preset.id, name: preset.name });
  }
  return matches;
}
