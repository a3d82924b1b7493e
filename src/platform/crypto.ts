import type { Env } from '../env';
import { SvcHttpError } from '../wire/errors';
import { fromBase64, toBase64, toBase64Url, toHex } from '../../schemas/encoding';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Lowercase hex SHA-256 of the UTF-8 text. */
export async function hashSha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text));
  return toHex(digest);
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of lowercase letters and digits, uniformly drawn (rejection sampling, no modulo bias). */
export function randomId(length: number, alphabet: string = ID_ALPHABET): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** `bytes` random bytes, base64url without padding. */
/** Stored base64 that does not decode is as undecryptable as a wrong key: the callers turn this into their error. */
function bytesOfBase64(text: string): Uint8Array {
  const bytes = fromBase64(text);
  if (!bytes) throw new TypeError('not base64');
  return bytes;
}

export const randomBase64Url = (bytes: number): string => toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));

const keyCache = new Map<string, Promise<CryptoKey>>();

/** SECRETS_KEY's 32 bytes. Missing or malformed: INTERNAL_ERROR 500 (the deployment is misconfigured). */
function secretsKeyBytes(env: Pick<Env, 'SECRETS_KEY'>): { encoded: string; raw: Uint8Array } {
  const encoded = env.SECRETS_KEY?.trim();
  if (!encoded) {
    throw new SvcHttpError('INTERNAL_ERROR', 'The secret encryption key (SECRETS_KEY) is not configured.', { status: 500 });
  }
  let raw: Uint8Array;
  try {
    raw = bytesOfBase64(encoded);
  } catch {
    raw = new Uint8Array(0);
  }
  if (raw.length !== 32) {
    throw new SvcHttpError('INTERNAL_ERROR', 'The secret encryption key (SECRETS_KEY) must be base64 of 32 bytes.', { status: 500 });
  }
  return { encoded, raw };
}

/** The AES-GCM key of SECRETS_KEY. */
function secretsKey(env: Pick<Env, 'SECRETS_KEY'>): Promise<CryptoKey> {
  const { encoded, raw } = secretsKeyBytes(env);
  let key = keyCache.get(encoded);
  if (!key) {
    key = crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
    keyCache.set(encoded, key);
  }
  return key;
}

const derivedKeys = new Map<string, Promise<CryptoKey>>();

/** An HMAC-SHA-256 key derived from SECRETS_KEY by HKDF for one purpose (`label`): never the encryption key itself. */
export function derivedHmacKey(env: Pick<Env, 'SECRETS_KEY'>, label: string): Promise<CryptoKey> {
  const { encoded, raw } = secretsKeyBytes(env);
  const cacheKey = `${label}\n${encoded}`;
  let key = derivedKeys.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', raw, 'HKDF', false, ['deriveKey'])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(label) },
          base,
          { name: 'HMAC', hash: 'SHA-256', length: 256 },
          false,
          ['sign'],
        ),
      );
    derivedKeys.set(cacheKey, key);
  }
  return key;
}

const CIPHERTEXT_VERSION = 'v1';

/**
 * Encrypts text with AES-GCM under SECRETS_KEY and a fresh 12-byte IV. `context` is bound as
 * additional data (e.g. the project and secret name), so a ciphertext moved to another row does not decrypt.
 * Result: `v1.<base64 iv>.<base64 ciphertext+tag>`.
 */
export async function encryptText(env: Pick<Env, 'SECRETS_KEY'>, plaintext: string, context: string): Promise<string> {
  const key = await secretsKey(env);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(context) }, key, encoder.encode(plaintext));
  return `${CIPHERTEXT_VERSION}.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`;
}

/** Decrypts what encryptText produced under the same context; a wrong key, context or a damaged value is INTERNAL_ERROR. */
export async function decryptText(env: Pick<Env, 'SECRETS_KEY'>, sealed: string, context: string): Promise<string> {
  const key = await secretsKey(env);
  const [version, iv, data] = sealed.split('.');
  try {
    if (version !== CIPHERTEXT_VERSION || !iv || !data) throw new Error('unknown ciphertext format');
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytesOfBase64(iv), additionalData: encoder.encode(context) }, key, bytesOfBase64(data));
    return decoder.decode(plain);
  } catch {
    throw new SvcHttpError('INTERNAL_ERROR', 'A stored secret could not be decrypted with the configured SECRETS_KEY.', { status: 500 });
  }
}
