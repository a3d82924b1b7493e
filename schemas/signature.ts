/**
 * The signature condition part (spec 2.2.1): its input schema, the grammar of parts and of the
 * signed/timestamp templates (shared with the verifier), and the stored form with defaults filled.
 * Beyond the spec (docs/signature-extensions.md): the tokens ${url}, ${query:name}, ${field:path}
 * and ${form:sorted}; `field`, `public_url`, `body_sha256`; the public-key algorithms; the `token`
 * algorithm (a header compared with the Secret Key) and its `raw` encoding. A config
 * that uses none of them is read, refused and stored exactly as spec 2.2.1 says.
 */
import * as z from 'zod';
import type { SignatureConfig } from './ticket-types';
import type { ExistenceCheck } from './lookups';
import { childPath, invalidField } from './paths';
import { PLACEHOLDER_NAME } from './references';

/** Beyond spec 2.2.1: public-key signatures; the Secret Key holds the public key (docs/signature-extensions.md). */
export const PUBLIC_KEY_ALGORITHMS = ['ed25519', 'ecdsa-p256-sha256', 'rsa-sha256'] as const;
/**
 * Beyond spec 2.2.1: a shared token compared with the Secret Key (GitLab's X-Gitlab-Token, Postmark's
 * basic auth), in constant time, instead of an HMAC (docs/signature-extensions.md "Tokens").
 */
export const TOKEN_ALGORITHM = 'token';

/** A body field path: names of letters, digits, _ and -, joined by dots. */
const FIELD_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** What the Secret Key of a public-key signature must hold (docs/signature-extensions.md). */
export const PUBLIC_KEY_FORMATS: Record<(typeof PUBLIC_KEY_ALGORITHMS)[number], string> = {
  ed25519: 'an Ed25519 public key (64 hex characters, or SPKI as PEM or base64)',
  'ecdsa-p256-sha256': 'an ECDSA P-256 public key (SPKI as PEM or base64 DER, or the uncompressed point)',
  'rsa-sha256': 'an RSA public key (SPKI as PEM, -----BEGIN PUBLIC KEY-----, or base64 DER)',
};

/** Seconds a signed timestamp may be away from now when the signature gives no tolerance. */
const DEFAULT_TOLERANCE = 300;

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export const signatureInputSchema = z.strictObject({
  secretName: z.string().min(1).optional().describe('Name of a project Secret Key (never the secret itself).'),
  secret: z.string().min(1).optional().describe('Older name of secretName; stored as secretName.'),
  header: z.string().min(1).max(256).regex(HEADER_NAME, 'must be an HTTP header name').optional(),
  algorithm: z.enum(['sha256', 'sha1', 'sha512', ...PUBLIC_KEY_ALGORITHMS, TOKEN_ALGORITHM]).optional(),
  encoding: z.enum(['hex', 'base64', 'raw']).optional().describe("How the header's value is written; 'raw' (as written) only with algorithm token."),
  separator: z.string().min(1).max(8).optional(),
  parts: z.array(z.string().min(1).max(256)).max(10).optional(),
  signed: z.string().min(1).max(512).optional(),
  timestamp: z.string().min(1).max(512).optional(),
  tolerance: z.int().min(1).max(86_400).optional(),
  secret_encoding: z.enum(['raw', 'base64', 'hex']).optional(),
  secret_prefix: z.string().max(64).optional(),
  field: z
    .string()
    .min(1)
    .max(256)
    .regex(FIELD_PATH, 'must be a body field path such as signature.signature')
    .optional()
    .describe('Extension: the body field carrying the signature, instead of header (Mailgun).'),
  public_url: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      'Extension: the URL the provider calls (https://host/path), when it is not the one this service receives (proxy, custom domain); ${url} is it plus the query as received.',
    ),
  body_sha256: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe("Extension: a template that, when it resolves, must equal the hex SHA-256 of the body (Twilio's ${query:bodySHA256})."),
});
export type SignatureInput = z.infer<typeof signatureInputSchema>;

/** A part pattern: literal prefix, at most one ${name} capture, literal suffix. */
interface SignaturePart {
  prefix: string;
  capture?: string;
  suffix: string;
}

type SignatureToken =
  | { kind: 'literal'; text: string }
  | { kind: 'body' }
  | { kind: 'method' }
  | { kind: 'header'; name: string }
  | { kind: 'capture'; name: string }
  | { kind: 'extension'; name: string };

/** Capture names that would shadow the built-in tokens of signed/timestamp. */
const RESERVED_CAPTURES = new Set(['body', 'method']);

/** Parses one part pattern such as 'v1=${signature}'. Throws Error with a reason. */
function parseSignaturePart(pattern: string): SignaturePart {
  const captures = [...pattern.matchAll(/\$\{([^}]*)\}/g)];
  if (captures.length > 1) throw new Error('holds more than one ${name} capture');
  if (captures.length === 0) {
    if (pattern.includes('${')) throw new Error('opens ${ without a closing }');
    return { prefix: pattern, suffix: '' };
  }
  const [match, name] = captures[0];
  if (!PLACEHOLDER_NAME.test(name)) throw new Error(`\${${name}} is not a capture name (letters, digits and _)`);
  if (RESERVED_CAPTURES.has(name)) throw new Error(`\${${name}} cannot be a capture name (it is a token of signed)`);
  const at = captures[0].index ?? 0;
  const suffix = pattern.slice(at + match.length);
  if (pattern.slice(0, at).includes('${') || suffix.includes('${')) throw new Error('opens ${ without a closing }');
  return { prefix: pattern.slice(0, at), capture: name, suffix };
}

/** Parses a signed or timestamp template: ${body}, ${method}, ${header:Name} and the captures of parts. */
function parseSignatureTemplate(template: string, captures: ReadonlySet<string>): SignatureToken[] {
  const tokens: SignatureToken[] = [];
  let rest = template;
  while (rest) {
    const at = rest.indexOf('${');
    if (at < 0) {
      tokens.push({ kind: 'literal', text: rest });
      break;
    }
    if (at > 0) tokens.push({ kind: 'literal', text: rest.slice(0, at) });
    const end = rest.indexOf('}', at);
    if (end < 0) throw new Error('opens ${ without a closing }');
    const name = rest.slice(at + 2, end);
    if (name === 'body' || name === 'method') tokens.push({ kind: name });
    else if (name.startsWith('header:') && HEADER_NAME.test(name.slice(7))) tokens.push({ kind: 'header', name: name.slice(7) });
    else if (captures.has(name)) tokens.push({ kind: 'capture', name });
    else if (isExtensionToken(name)) tokens.push({ kind: 'extension', name });
    else {
      const known = [
        '${body}',
        '${method}',
        '${header:Name}',
        ...[...captures].map((c) => `\${${c}}`),
        '${url}',
        '${query:name}',
        '${field:path}',
        '${form:sorted}',
      ];
      throw new Error(`\${${name}} is not a token here; use ${known.join(', ')}`);
    }
    rest = rest.slice(end + 1);
  }
  return tokens;
}

/** The extension tokens (docs/signature-extensions.md). */
function isExtensionToken(name: string): boolean {
  if (name === 'url' || name === 'form:sorted') return true;
  if (name.startsWith('query:')) return /^[A-Za-z0-9_.~-]{1,128}$/.test(name.slice(6));
  if (name.startsWith('field:')) return FIELD_PATH.test(name.slice(6)) && name.length <= 262;
  return false;
}

/** A public URL: absolute http(s), no query, fragment or credentials. Throws Error with a reason. */
function checkPublicUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('is not an absolute URL (https://host/path)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an http or https URL');
  if (url.search || url.hash || text.includes('?') || text.includes('#')) throw new Error('takes no query or fragment (the query is the one received)');
  if (url.username || url.password) throw new Error('takes no credentials');
}

/** Checks the signature part and fills its defaults; the secret key's existence is queued in `checks`. */
export function normalizeSignature(input: SignatureInput, path: string, checks: ExistenceCheck[]): SignatureConfig {
  if (input.secretName !== undefined && input.secret !== undefined) {
    throw invalidField(childPath(path, 'secret'), 'secret is the older name of secretName; give secretName only');
  }
  const secretName = input.secretName ?? input.secret;
  if (secretName === undefined) throw invalidField(childPath(path, 'secretName'), 'is required (the name of a project Secret Key)');

  const parts = input.parts ?? ['${signature}'];
  const captures = new Set<string>();
  parts.forEach((pattern, i) => {
    try {
      const capture = parseSignaturePart(pattern).capture;
      if (capture) captures.add(capture);
    } catch (error) {
      throw invalidField(childPath(childPath(path, 'parts'), i), (error as Error).message);
    }
  });
  if (!captures.has('signature')) throw invalidField(childPath(path, 'parts'), 'at least one part must capture ${signature}');

  if (input.header === undefined && input.field === undefined) {
    throw invalidField(childPath(path, 'header'), 'is required (the header carrying the signature; or, as an extension, field for a signature in the body)');
  }
  if (input.header !== undefined && input.field !== undefined)
    throw invalidField(childPath(path, 'field'), 'reads the signature from the body instead of a header: give header or field, not both');
  if (input.public_url !== undefined) {
    try {
      checkPublicUrl(input.public_url);
    } catch (error) {
      throw invalidField(childPath(path, 'public_url'), (error as Error).message);
    }
  }
  const publicKey = (PUBLIC_KEY_ALGORITHMS as readonly string[]).includes(input.algorithm ?? '');
  if (publicKey && input.secret_encoding !== undefined && input.secret_encoding !== 'raw') {
    throw invalidField(
      childPath(path, 'secret_encoding'),
      `does not apply to ${input.algorithm}: the Secret Key holds the public key itself (see docs/signature-extensions.md)`,
    );
  }
  if (publicKey && input.secret_prefix)
    throw invalidField(childPath(path, 'secret_prefix'), `does not apply to ${input.algorithm}: the Secret Key holds the public key itself`);

  if (input.algorithm === TOKEN_ALGORITHM) {
    // The log keeps the body: a token read from it would be kept there (a header is redacted).
    if (input.field !== undefined)
      throw invalidField(
        childPath(path, 'field'),
        'does not apply to algorithm token: the token is read from a header, which the log redacts (a body is kept as sent)',
      );
    // signed keeps its default '${body}' (stored on every signature, so a listed ticket saves back as it is) and is not read.
    for (const field of ['signed', 'timestamp', 'body_sha256'] as const) {
      const given = field === 'signed' ? input.signed !== undefined && input.signed !== '${body}' : input[field] !== undefined;
      if (given) throw invalidField(childPath(path, field), 'does not apply to algorithm token: the header is compared with the Secret Key itself');
    }
  } else if (input.encoding === 'raw') {
    throw invalidField(childPath(path, 'encoding'), 'raw applies only to algorithm token (a signature is written in hex or base64)');
  }
  const signed = input.signed ?? '${body}';
  for (const field of ['signed', 'timestamp', 'body_sha256'] as const) {
    const template = field === 'signed' ? signed : input[field];
    if (template === undefined) continue;
    try {
      parseSignatureTemplate(template, captures);
    } catch (error) {
      throw invalidField(childPath(path, field), (error as Error).message);
    }
  }
  // Earlier versions stored the default tolerance on every signature; a listed ticket of theirs saves back as is.
  const legacyDefault = input.timestamp === undefined && input.tolerance === DEFAULT_TOLERANCE;
  if (input.tolerance !== undefined && input.timestamp === undefined && !legacyDefault) {
    throw invalidField(childPath(path, 'tolerance'), 'applies only with timestamp; add a timestamp template or remove tolerance');
  }

  checks.push({
    path: childPath(path, 'secretName'),
    message: `no Secret Key named "${secretName}" in this project`,
    exists: (lookups) => lookups.secretExists(secretName),
  });
  const algorithm = input.algorithm;
  if (algorithm === 'ed25519' || algorithm === 'ecdsa-p256-sha256' || algorithm === 'rsa-sha256') {
    checks.push({
      path: childPath(path, 'secretName'),
      message: `the Secret Key "${secretName}" does not hold ${PUBLIC_KEY_FORMATS[algorithm]}`,
      // Lookups without a key check (tests of other parts) pass; the consumption still fails cleanly.
      exists: async (lookups) => !(await lookups.secretExists(secretName)) || !lookups.publicKeyUsable || lookups.publicKeyUsable(secretName, algorithm),
    });
  }

  const config: SignatureConfig = {
    secretName,
    ...(input.header !== undefined ? { header: input.header } : {}),
    algorithm: input.algorithm ?? 'sha256',
    encoding: input.encoding ?? 'hex',
    parts,
    signed,
    secret_encoding: input.secret_encoding ?? 'raw',
  };
  if (input.separator !== undefined) config.separator = input.separator;
  if (input.timestamp !== undefined) {
    config.timestamp = input.timestamp;
    config.tolerance = input.tolerance ?? DEFAULT_TOLERANCE;
  }
  if (input.secret_prefix) config.secret_prefix = input.secret_prefix;
  if (input.field !== undefined) config.field = input.field;
  if (input.public_url !== undefined) config.public_url = input.public_url;
  if (input.body_sha256 !== undefined) config.body_sha256 = input.body_sha256;
  return config;
}

/**
 * What a check found, for the owner's diagnosis (never the secret, the expected signature or the
 * signature the request carried): filled as far as the check got.
 */
export interface SignatureTrace {
  /** The header (or body field) read, and whether the request had it. */
  source?: { header?: string; field?: string; found: boolean };
  items?: string[];
  /** Which part each item matched (-1 none); signature captures are counted, never shown. */
  matched_parts?: number[];
  captures?: Record<string, string>;
  signature_candidates?: number;
  /** Byte lengths of the candidates that decoded. */
  decoded_lengths?: number[];
  timestamp?: { value?: string; age_seconds?: number; tolerance: number; fresh: boolean };
  body_sha256?: { checked: boolean; matches?: boolean };
  /** The signed bytes: their length and SHA-256 (hex), or the token that had no value. */
  signed?: { length: number; sha256: string } | { missing_token: string };
  key?: 'usable' | 'unusable';
  /** The first reason the check failed, or 'verified'. */
  result?: string;
}
