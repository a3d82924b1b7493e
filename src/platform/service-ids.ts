/**
 * Service ids that carry a keyed check (docs/decisions.md, "Ids that do not exist cost no store read"):
 * 14 random lowercase letters and digits, then 6 more computed from them by HMAC-SHA-256 under a key
 * derived from SECRETS_KEY. A made-up id passes with probability 36^-6 (about 1 in 2 billion), so a
 * request for one is refused without reading D1, whatever address sends it.
 */
import type { Env } from '../env';
import { constantTimeEqualText } from '../bytes/constant-time';
import { derivedHmacKey, randomId } from './crypto';

/** 20 lowercase letters and digits; the first 4 are the regional subdomain label of {base_url}. */
export const SERVICE_ID_PATTERN = /^[a-z0-9]{20}$/;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM_CHARS = 14;
const CHECK_CHARS = 6;
const KEY_LABEL = 'svc service id check v1';

/** The check characters of a MAC: its first 8 bytes as a number, in base 36, last 6 digits (bias below 2^-40). Pure. */
export function checkCharsOf(mac: Uint8Array): string {
  let value = 0n;
  for (const byte of mac.subarray(0, 8)) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < CHECK_CHARS; i++) {
    out = ALPHABET[Number(value % 36n)] + out;
    value /= 36n;
  }
  return out;
}

async function checkOf(env: Pick<Env, 'SECRETS_KEY'>, randomPart: string): Promise<string> {
  const key = await derivedHmacKey(env, KEY_LABEL);
  return checkCharsOf(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(randomPart))));
}

/** A new service id that carries its check. */
export async function newServiceId(env: Pick<Env, 'SECRETS_KEY'>): Promise<string> {
  const randomPart = randomId(RANDOM_CHARS);
  return randomPart + (await checkOf(env, randomPart));
}

/**
 * Ids found to carry their check, under the SECRETS_KEY they were checked with: a busy project's id
 * costs one HMAC per isolate, not one per request. Only ids that pass are kept, so made-up ids (a
 * flood) never push out real ones; the set starts again when full.
 */
let verified: { secretsKey: unknown; ids: Set<string> } | undefined;
const VERIFIED_KEPT = 10_000;

/** Whether `serviceId` is one newServiceId made under this deployment's SECRETS_KEY (compared in constant time). */
export async function carriesCheck(env: Pick<Env, 'SECRETS_KEY'>, serviceId: string): Promise<boolean> {
  if (!SERVICE_ID_PATTERN.test(serviceId)) return false;
  if (!verified || verified.secretsKey !== env.SECRETS_KEY) verified = { secretsKey: env.SECRETS_KEY, ids: new Set() };
  const known: { ids: Set<string> } = verified;
  if (known.ids.has(serviceId)) return true;
  const expected = await checkOf(env, serviceId.slice(0, RANDOM_CHARS));
  if (!constantTimeEqualText(serviceId.slice(RANDOM_CHARS), expected)) return false;
  if (known.ids.size >= VERIFIED_KEPT) known.ids.clear();
  known.ids.add(serviceId);
  return true;
}
