/**
 * HMAC signature check of a ticket condition (spec 2.2.1). Pure apart from crypto.subtle: the
 * caller hands in the raw body, the stored secret and the clock. Any failure is `false`, never a throw.
 */
import type { SignatureConfig } from '../../schemas/ticket-types';
import { concatBytes } from '../bytes/read-capped';
import { constantTimeEqual } from '../bytes/constant-time';

export interface SignedRequest {
  rawBody: Uint8Array;
  method: string;
  /** Lowercase names; looked up case-insensitively all the same. */
  headers: Record<string, string>;
}

const HASHES = { sha256: 'SHA-256', sha1: 'SHA-1', sha512: 'SHA-512' } as const;
const DEFAULT_PARTS = ['${signature}'];
const DEFAULT_SIGNED = '${body}';
const DEFAULT_TOLERANCE_SECONDS = 300;
/** Timestamps above this are milliseconds, below it seconds (spec 2.2.1). */
const MILLISECONDS_ABOVE = 1e12;
const TOKEN = /\$\{([^}]*)\}/g;
const SIGNATURE_CAPTURE = 'signature';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Imported keys of one stored secret, by how the secret is read (hash, secret_encoding,
 * secret_prefix). The caller scopes a map to one secret value and drops it with that value.
 */
export type SigningKeys = Map<string, Promise<CryptoKey | undefined>>;

export async function verifySignature(
  config: SignatureConfig,
  request: SignedRequest,
  storedSecret: string,
  nowMs: number,
  keys: SigningKeys = new Map(),
): Promise<boolean> {
  try {
    return await verify(config, request, storedSecret, nowMs, keys);
  } catch {
    return false;
  }
}

async function verify(config: SignatureConfig, request: SignedRequest, storedSecret: string, nowMs: number, keys: SigningKeys): Promise<boolean> {
  const algorithm = config.algorithm ?? 'sha256';
  if (!Object.hasOwn(HASHES, algorithm)) return false;

  const headerValue = readHeader(request.headers, config.header);
  if (headerValue === undefined) return false;

  const patterns = parsePatterns(config.parts ?? DEFAULT_PARTS);
  if (!patterns) return false;
  const { captures, candidates } = matchItems(splitItems(headerValue, config.separator), patterns);

  const encoding = config.encoding ?? 'hex';
  const claimed = candidates.map((c) => decodeText(c, encoding)).filter((b): b is Uint8Array => b !== undefined);
  if (claimed.length === 0) return false;

  const context: TemplateContext = { request, captures };
  if (config.timestamp !== undefined && !isTimestampFresh(config, context, nowMs)) return false;

  const signedBytes = resolveTemplate(config.signed ?? DEFAULT_SIGNED, context);
  if (!signedBytes) return false;

  const key = await signingKey(HASHES[algorithm], storedSecret, config, keys);
  if (!key) return false;

  const digest = new Uint8Array(await crypto.subtle.sign('HMAC', key, signedBytes));
  // Compare against every candidate (no short-circuit); any one matching passes.
  let matched = false;
  for (const candidate of claimed) matched = constantTimeEqual(digest, candidate) || matched;
  return matched;
}

// ---- header items and parts ----

interface Pattern {
  prefix: string;
  suffix: string;
  /** Absent for a literal part (matches an item equal to it, captures nothing). */
  capture?: string;
}

function readHeader(headers: Record<string, string>, name: string): string | undefined {
  if (typeof name !== 'string' || name === '') return undefined;
  const lower = name.toLowerCase();
  if (Object.hasOwn(headers, lower)) return headers[lower];
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) return headers[key];
  return undefined;
}

function splitItems(value: string, separator: string | undefined): string[] {
  if (!separator) return [value.trim()];
  return value.split(separator).map((item) => item.trim());
}

/** undefined when a part has more than one capture or an unterminated `${`. */
function parsePatterns(parts: string[]): Pattern[] | undefined {
  const patterns: Pattern[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') return undefined;
    const open = part.indexOf('${');
    if (open === -1) {
      patterns.push({ prefix: part, suffix: '' });
      continue;
    }
    const close = part.indexOf('}', open + 2);
    if (close === -1) return undefined;
    const suffix = part.slice(close + 1);
    if (suffix.includes('${')) return undefined;
    patterns.push({ prefix: part.slice(0, open), suffix, capture: part.slice(open + 2, close) });
  }
  return patterns;
}

function matchPattern(item: string, pattern: Pattern): string | undefined {
  if (pattern.capture === undefined) return item === pattern.prefix ? '' : undefined;
  const { prefix, suffix } = pattern;
  if (item.length < prefix.length + suffix.length || !item.startsWith(prefix) || !item.endsWith(suffix)) return undefined;
  return item.slice(prefix.length, item.length - suffix.length);
}

/** Every item is tried against every part; the first item to fill a non-signature capture wins. */
function matchItems(items: string[], patterns: Pattern[]): { captures: Map<string, string>; candidates: string[] } {
  const captures = new Map<string, string>();
  const candidates: string[] = [];
  for (const item of items) {
    for (const pattern of patterns) {
      const value = matchPattern(item, pattern);
      if (value === undefined || pattern.capture === undefined) continue;
      if (pattern.capture === SIGNATURE_CAPTURE) candidates.push(value);
      else if (!captures.has(pattern.capture)) captures.set(pattern.capture, value);
    }
  }
  return { captures, candidates };
}

// ---- templates (signed bytes, timestamp) ----

interface TemplateContext {
  request: SignedRequest;
  captures: Map<string, string>;
}

/** Built as bytes so a body that is not UTF-8 is signed exactly as received. undefined = a token has no value. */
function resolveTemplate(template: string, context: TemplateContext): Uint8Array | undefined {
  const chunks: Uint8Array[] = [];
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    chunks.push(utf8.encode(template.slice(last, match.index)));
    const value = resolveToken(match[1], context);
    if (value === undefined) return undefined;
    chunks.push(value);
    last = match.index + match[0].length;
  }
  chunks.push(utf8.encode(template.slice(last)));
  return concatBytes(chunks);
}

/** body, method and header:Name are reserved; any other name is a capture of parts. */
function resolveToken(name: string, { request, captures }: TemplateContext): Uint8Array | undefined {
  if (name === 'body') return request.rawBody;
  if (name === 'method') return utf8.encode(request.method);
  if (name.startsWith('header:')) {
    const value = readHeader(request.headers, name.slice('header:'.length));
    return value === undefined ? undefined : utf8.encode(value);
  }
  const captured = captures.get(name);
  return captured === undefined ? undefined : utf8.encode(captured);
}

function isTimestampFresh(config: SignatureConfig, context: TemplateContext, nowMs: number): boolean {
  const tolerance = config.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0 || !Number.isFinite(nowMs)) return false;
  const bytes = resolveTemplate(config.timestamp as string, context);
  if (!bytes) return false;
  const text = utf8Decoder.decode(bytes).trim();
  // Non-UTF-8 bytes decode to U+FFFD and fail the digit check.
  if (!/^\d+(\.\d+)?$/.test(text)) return false;
  const value = Number(text);
  const timestampMs = value > MILLISECONDS_ABOVE ? value : value * 1000;
  return Math.abs(nowMs - timestampMs) <= tolerance * 1000;
}

// ---- key, HMAC and encodings ----

function decodeSecret(storedSecret: string, config: SignatureConfig): Uint8Array | undefined {
  if (typeof storedSecret !== 'string') return undefined;
  const prefix = config.secret_prefix;
  const secret = prefix && storedSecret.startsWith(prefix) ? storedSecret.slice(prefix.length) : storedSecret;
  const encoding = config.secret_encoding ?? 'raw';
  if (encoding === 'raw') return utf8.encode(secret);
  return decodeText(secret, encoding);
}

/** The secret as an HMAC key, imported once per way of reading it; undefined when it does not decode. */
function signingKey(hash: string, storedSecret: string, config: SignatureConfig, keys: SigningKeys): Promise<CryptoKey | undefined> {
  const cacheKey = JSON.stringify([hash, config.secret_encoding ?? 'raw', config.secret_prefix ?? '']);
  let key = keys.get(cacheKey);
  if (!key) {
    const bytes = decodeSecret(storedSecret, config);
    key = !bytes || bytes.length === 0 ? Promise.resolve(undefined) : crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash }, false, ['sign']);
    keys.set(cacheKey, key);
  }
  return key;
}

function decodeText(text: string, encoding: string): Uint8Array | undefined {
  if (encoding === 'hex') return decodeHex(text);
  if (encoding === 'base64') return decodeBase64(text);
  return undefined;
}

/** Either case; an odd length or a non-hex character is undecodable. */
function decodeHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard or URL-safe alphabet, padding optional but correct when present; nothing else accepted. */
function decodeBase64(text: string): Uint8Array | undefined {
  let body = text.replace(/-/g, '+').replace(/_/g, '/');
  const padding = body.match(/=*$/)![0].length;
  if (padding > 2 || (padding > 0 && body.length % 4 !== 0)) return undefined;
  body = body.slice(0, body.length - padding);
  if (body.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(body)) return undefined;
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4));
  let bits = 0;
  let bitCount = 0;
  let out = 0;
  for (const char of body) {
    bits = ((bits << 6) | BASE64_DIGITS.indexOf(char)) & 0xffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      bytes[out++] = (bits >> bitCount) & 0xff;
    }
  }
  return bytes;
}
