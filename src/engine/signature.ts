/**
 * Signature check of a ticket condition (spec 2.2.1, and the extensions of
 * docs/signature-extensions.md: URL, query, body-field and form tokens, a signature in a body field,
 * a body digest, public-key algorithms, a token compared with the Secret Key). Pure apart from crypto.subtle: the caller hands in the raw
 * body, the stored secret and the clock. Any failure is `false`, never a throw.
 */
import { TOKEN_ALGORITHM, type SignatureTrace } from '../../schemas/signature';
import type { SignatureConfig } from '../../schemas/ticket-types';
import { concatBytes } from '../bytes/read-capped';
import { constantTimeEqual } from '../bytes/constant-time';
import { importPublicKey, isPublicKeyAlgorithm, verifyWithPublicKey } from './public-key';
import { bodyField, calledUrl, queryValue, sortedForm } from './signed-request-parts';
import { fromBase64, fromHex, toHex } from '../../schemas/encoding';

export interface SignedRequest {
  rawBody: Uint8Array;
  method: string;
  /** Lowercase names; looked up case-insensitively all the same. */
  headers: Record<string, string>;
  /** The URL as received (scheme, host, path, query); read by the ${url} extension token. */
  url?: string;
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
 * secret_prefix, or the public-key algorithm). The caller scopes a map to one secret value and
 * drops it with that value.
 */
export type SigningKeys = Map<string, Promise<CryptoKey | undefined>>;

export async function verifySignature(
  config: SignatureConfig,
  request: SignedRequest,
  storedSecret: string,
  nowMs: number,
  keys: SigningKeys = new Map(),
  trace?: SignatureTrace,
): Promise<boolean> {
  try {
    const verified = await verify(config, request, storedSecret, nowMs, keys, trace);
    if (trace && verified) trace.result = 'verified';
    return verified;
  } catch {
    if (trace) trace.result ??= 'the check failed unexpectedly';
    return false;
  }
}

async function verify(
  config: SignatureConfig,
  request: SignedRequest,
  storedSecret: string,
  nowMs: number,
  keys: SigningKeys,
  trace: SignatureTrace | undefined,
): Promise<boolean> {
  const fail = (reason: string) => {
    if (trace) trace.result = reason;
    return false;
  };
  const algorithm = config.algorithm ?? 'sha256';
  const publicKey = isPublicKeyAlgorithm(algorithm);
  const token = algorithm === TOKEN_ALGORITHM;
  if (!publicKey && !token && !Object.hasOwn(HASHES, algorithm)) return fail('unknown algorithm');

  const url = calledUrl(request.url, config.public_url);
  const sourceValue = config.field !== undefined ? bodyField(request.rawBody, request.headers, config.field) : readHeader(request.headers, config.header ?? '');
  if (trace) trace.source = { ...(config.field !== undefined ? { field: config.field } : { header: config.header }), found: sourceValue !== undefined };
  if (sourceValue === undefined) return fail(config.field !== undefined ? 'the body has no such field' : 'the request has no such header');

  const patterns = parsePatterns(config.parts ?? DEFAULT_PARTS);
  if (!patterns) return fail('a part does not parse');
  const items = splitItems(sourceValue, config.separator);
  const { captures, candidates, matched } = matchItems(items, patterns);
  if (trace) {
    trace.items = items.map((item, i) =>
      matched[i] >= 0 && patterns[matched[i]].capture === SIGNATURE_CAPTURE ? `${patterns[matched[i]].prefix}…${patterns[matched[i]].suffix}` : maskLong(item),
    );
    trace.matched_parts = matched;
    trace.captures = Object.fromEntries([...captures].map(([name, value]) => [name, maskLong(value)]));
    trace.signature_candidates = candidates.length;
  }

  const encoding = config.encoding ?? 'hex';
  const claimed = candidates.map((c) => decodeText(c, encoding)).filter((b): b is Uint8Array => b !== undefined);
  if (trace) trace.decoded_lengths = claimed.map((b) => b.length);
  if (claimed.length === 0) return fail(candidates.length === 0 ? 'no item matched a ${signature} part' : `no signature decodes as ${encoding}`);
  if (token) return (await tokenMatches(claimed, storedSecret, config, trace)) || fail('no token matches the Secret Key');

  const context: TemplateContext = { request, captures, url, boundByDigest: false };
  if (config.body_sha256 !== undefined) {
    const digest = await bodyDigestCheck(config.body_sha256, context);
    if (trace) trace.body_sha256 = { checked: digest !== undefined, ...(digest !== undefined ? { matches: digest } : {}) };
    if (digest === false) return fail('the body does not match its SHA-256 digest');
    context.boundByDigest = digest === true;
  }
  if (config.timestamp !== undefined && !isTimestampFresh(config, context, nowMs, trace))
    return fail('the timestamp is missing, not a number, or outside the tolerance');

  const signedBytes = resolveTemplate(config.signed ?? DEFAULT_SIGNED, context);
  if (!signedBytes) {
    if (trace) trace.signed = { missing_token: missingToken(config.signed ?? DEFAULT_SIGNED, context) ?? '' };
    return fail('a token of signed has no value in this request');
  }
  if (trace) trace.signed = { length: signedBytes.length, sha256: toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', signedBytes))) };

  if (publicKey) {
    const key = await cachedKey(keys, JSON.stringify(['public', algorithm]), () => importPublicKey(algorithm, storedSecret));
    if (trace) trace.key = key ? 'usable' : 'unusable';
    if (!key) return fail(`the Secret Key does not hold a usable ${algorithm} public key`);
    // Every candidate is tried (no short-circuit); any one verifying passes.
    let verified = false;
    for (const candidate of claimed) verified = (await verifyWithPublicKey(algorithm, key, candidate, signedBytes)) || verified;
    return verified || fail('no signature verifies with this key');
  }

  const key = await signingKey(HASHES[algorithm], storedSecret, config, keys);
  if (trace) trace.key = key ? 'usable' : 'unusable';
  if (!key) return fail('the Secret Key does not decode with secret_encoding/secret_prefix');

  const digest = new Uint8Array(await crypto.subtle.sign('HMAC', key, signedBytes));
  // Compare against every candidate (no short-circuit); any one matching passes.
  let matchedAny = false;
  for (const candidate of claimed) matchedAny = constantTimeEqual(digest, candidate) || matchedAny;
  return matchedAny || fail('no signature matches the HMAC of the signed bytes with this key');
}

/**
 * The token extension: a candidate equals the Secret Key (read with secret_encoding/secret_prefix).
 * Both sides are hashed with SHA-256 first and the digests compared in constant time, so neither a
 * matching prefix nor the token's length shows in the time taken.
 */
async function tokenMatches(claimed: Uint8Array[], storedSecret: string, config: SignatureConfig, trace: SignatureTrace | undefined): Promise<boolean> {
  const expected = decodeSecret(storedSecret, config);
  const usable = expected !== undefined && expected.length > 0;
  if (trace) trace.key = usable ? 'usable' : 'unusable';
  if (!usable) return false;
  const want = await sha256(expected);
  let matched = false;
  for (const candidate of claimed) matched = constantTimeEqual(await sha256(candidate), want) || matched;
  return matched;
}

const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));

/** true/false: the template resolved and the body's hex SHA-256 matches it or not; undefined: it did not resolve. */
async function bodyDigestCheck(template: string, context: TemplateContext): Promise<boolean | undefined> {
  const claimed = resolveTemplate(template, context);
  if (!claimed) return undefined;
  const actual = utf8.encode(toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', context.request.rawBody))));
  return constantTimeEqual(actual, utf8.encode(utf8Decoder.decode(claimed).toLowerCase()));
}

/**
 * For the trace: any run of 16 or more hex/base64 characters shown as '…', so an item or capture
 * that holds a signature (a part that does not match it, a capture misnamed) never shows it.
 */
const maskLong = (text: string) => text.replace(/[A-Za-z0-9+/_-]{16,}={0,2}/g, '…');

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

/** Parsed parts by the config's own array (the TicketDO keeps the ticket, so one parse per definition); null: does not parse. */
const parsedParts = new WeakMap<readonly string[], readonly Pattern[] | null>();

/** undefined when a part has more than one capture or an unterminated `${`. */
function parsePatterns(parts: readonly string[]): readonly Pattern[] | undefined {
  if (!Array.isArray(parts)) return parsePatternsOnce(parts);
  let parsed = parsedParts.get(parts);
  if (parsed === undefined) {
    parsed = parsePatternsOnce(parts) ?? null;
    parsedParts.set(parts, parsed);
  }
  return parsed ?? undefined;
}

function parsePatternsOnce(parts: readonly string[]): Pattern[] | undefined {
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

/** Every item is tried against every part; the first item to fill a non-signature capture wins. `matched`: each item's first matching part, -1 none. */
function matchItems(items: string[], patterns: readonly Pattern[]): { captures: Map<string, string>; candidates: string[]; matched: number[] } {
  const captures = new Map<string, string>();
  const candidates: string[] = [];
  const matched: number[] = [];
  for (const item of items) {
    let first = -1;
    patterns.forEach((pattern, index) => {
      const value = matchPattern(item, pattern);
      if (value === undefined) return;
      if (first === -1) first = index;
      if (pattern.capture === undefined) return;
      if (pattern.capture === SIGNATURE_CAPTURE) candidates.push(value);
      else if (!captures.has(pattern.capture)) captures.set(pattern.capture, value);
    });
    matched.push(first);
  }
  return { captures, candidates, matched };
}

// ---- templates (signed bytes, timestamp) ----

interface TemplateContext {
  request: SignedRequest;
  captures: Map<string, string>;
  /** The URL the provider called (extension token ${url}). */
  url: string | undefined;
  /** The body's SHA-256 matched the config's body_sha256: ${form:sorted} is then '' (Twilio's JSON variant). */
  boundByDigest: boolean;
}

/** A template as literal bytes and token names, alternating: literals[i] comes before tokens[i]; one literal more than tokens. */
interface ParsedTemplate {
  literals: Uint8Array[];
  tokens: string[];
}

/** Templates seen in this isolate (a ticket's signed/timestamp/body_sha256 strings), dropped whole when full. */
const parsedTemplates = new Map<string, ParsedTemplate>();
const PARSED_TEMPLATES_KEPT = 512;

function parseTemplate(template: string): ParsedTemplate {
  let parsed = parsedTemplates.get(template);
  if (parsed) return parsed;
  parsed = { literals: [], tokens: [] };
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    parsed.literals.push(utf8.encode(template.slice(last, match.index)));
    parsed.tokens.push(match[1]);
    last = match.index + match[0].length;
  }
  parsed.literals.push(utf8.encode(template.slice(last)));
  if (parsedTemplates.size >= PARSED_TEMPLATES_KEPT) parsedTemplates.clear();
  parsedTemplates.set(template, parsed);
  return parsed;
}

/** Built as bytes so a body that is not UTF-8 is signed exactly as received. undefined = a token has no value. */
function resolveTemplate(template: string, context: TemplateContext): Uint8Array | undefined {
  const { literals, tokens } = parseTemplate(template);
  const chunks: Uint8Array[] = [literals[0]];
  for (let i = 0; i < tokens.length; i++) {
    const value = resolveToken(tokens[i], context);
    if (value === undefined) return undefined;
    chunks.push(value, literals[i + 1]);
  }
  return concatBytes(chunks);
}

/** The first token of `template` without a value (for the diagnosis). */
function missingToken(template: string, context: TemplateContext): string | undefined {
  for (const match of template.matchAll(TOKEN)) if (resolveToken(match[1], context) === undefined) return match[0];
  return undefined;
}

/**
 * body, method and header:Name are the spec's tokens; url, query:name, field:path and form:sorted
 * the extensions; any other name is a capture of parts.
 */
function resolveToken(name: string, context: TemplateContext): Uint8Array | undefined {
  const { request, captures } = context;
  if (name === 'body') return request.rawBody;
  if (name === 'method') return utf8.encode(request.method);
  const text = (value: string | undefined) => (value === undefined ? undefined : utf8.encode(value));
  if (name.startsWith('header:')) return text(readHeader(request.headers, name.slice('header:'.length)));
  if (name === 'url') return text(context.url);
  if (name.startsWith('query:')) return text(queryValue(context.url, name.slice('query:'.length)));
  if (name.startsWith('field:')) return text(bodyField(request.rawBody, request.headers, name.slice('field:'.length)));
  if (name === 'form:sorted') return text(context.boundByDigest ? '' : sortedForm(request.rawBody, request.headers));
  return text(captures.get(name));
}

function isTimestampFresh(config: SignatureConfig, context: TemplateContext, nowMs: number, trace: SignatureTrace | undefined): boolean {
  const tolerance = config.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  const note = (fresh: boolean, value?: string, ageSeconds?: number) => {
    if (trace)
      trace.timestamp = { ...(value !== undefined ? { value } : {}), ...(ageSeconds !== undefined ? { age_seconds: ageSeconds } : {}), tolerance, fresh };
    return fresh;
  };
  if (!Number.isFinite(tolerance) || tolerance < 0 || !Number.isFinite(nowMs)) return note(false);
  const bytes = resolveTemplate(config.timestamp as string, context);
  if (!bytes) return note(false);
  const text = utf8Decoder.decode(bytes).trim();
  // Non-UTF-8 bytes decode to U+FFFD and fail the digit check.
  if (!/^\d+(\.\d+)?$/.test(text)) return note(false, text.slice(0, 64));
  const value = Number(text);
  const timestampMs = value > MILLISECONDS_ABOVE ? value : value * 1000;
  const age = (nowMs - timestampMs) / 1000;
  return note(Math.abs(nowMs - timestampMs) <= tolerance * 1000, text, Math.round(age * 1000) / 1000);
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
  return cachedKey(keys, cacheKey, () => {
    const bytes = decodeSecret(storedSecret, config);
    return !bytes || bytes.length === 0 ? Promise.resolve(undefined) : crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash }, false, ['sign']);
  });
}

function cachedKey(keys: SigningKeys, cacheKey: string, load: () => Promise<CryptoKey | undefined>): Promise<CryptoKey | undefined> {
  let key = keys.get(cacheKey);
  if (!key) {
    key = load();
    keys.set(cacheKey, key);
  }
  return key;
}

function decodeText(text: string, encoding: string): Uint8Array | undefined {
  if (encoding === 'raw') return utf8.encode(text);
  if (encoding === 'hex') return fromHex(text);
  if (encoding === 'base64') return fromBase64(text);
  return undefined;
}
