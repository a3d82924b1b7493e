import { readCapped } from '../bytes/read-capped';
import { SvcHttpError } from '../wire/errors';
import { jsonDepth } from '../wire/json-depth';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_QUERY_KEYS } from '../limits';

const refuse = (message: string) => new SvcHttpError('INVALID_REQUEST', message, { stage: 'ticket' });

/**
 * The query string as an object: each value JSON-parsed when it parses, else kept as a string
 * (?qty=2 is the number 2; with jsonValues false, as a legacy ticket reads it, the string '2').
 * A key given more than once reads as the list of its values.
 */
export function parseQuery(search: string, jsonValues = true): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const repeated = new Set<string>();
  let keys = 0;
  for (const [key, raw] of new URLSearchParams(search)) {
    const value = jsonValues ? parseJsonOrText(raw) : raw;
    if (!Object.hasOwn(out, key)) {
      if (++keys > MAX_QUERY_KEYS) throw refuse(`The query string has more than ${MAX_QUERY_KEYS} keys.`);
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    } else if (repeated.has(key)) (out[key] as unknown[]).push(value);
    else {
      repeated.add(key);
      out[key] = [out[key], value];
    }
  }
  return out;
}

/** First characters JSON text can start with (after optional whitespace): anything else is plain text, without a throwing parse. */
const JSON_START = /^\s*[{["\-0-9tfn]/;

function parseJsonOrText(raw: string): unknown {
  if (!JSON_START.test(raw)) return raw;
  try {
    return jsonDepth(raw) > MAX_JSON_DEPTH ? raw : JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Non-streaming decodes keep no state between calls, so one decoder serves every request. */
const utf8Lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/**
 * A POST body: parsed as JSON when it parses, else kept as its text (invalid UTF-8 decoded with
 * replacement characters; the raw bytes stay available for the signature). An empty body reads as {}.
 */
export function parseBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return {};
  const text = utf8Lossy.decode(bytes);
  const trimmed = text.trim();
  const first = trimmed[0];
  const looksJson =
    first === '{' ||
    first === '[' ||
    first === '"' ||
    first === '-' ||
    (first >= '0' && first <= '9') ||
    trimmed === 'true' ||
    trimmed === 'false' ||
    trimmed === 'null';
  if (!looksJson) return text;
  if (jsonDepth(trimmed) > MAX_JSON_DEPTH) throw refuse(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** Reads the raw body bytes once, refusing a body over the limit without buffering all of it. */
export async function readBodyBytes(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // A declared length within the limit bounds the body (the runtime enforces the framing): one read.
  if (Number.isInteger(declared) && declared >= 0) return new Uint8Array(await request.arrayBuffer());
  return readCapped(request.body, MAX_BODY_BYTES, tooLarge);
}

const tooLarge = () => refuse(`The request body is larger than ${MAX_BODY_BYTES} bytes.`);

/** Request headers as a plain object with lowercase names. */
export function headerObject(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}
