/**
 * Idempotent consumption (extension, docs/api.md "Idempotent consumption"): a ticket names a key its
 * requests carry (one reference of headers, body or params) and a window; a second consumption with a
 * key already run successfully within the window answers the first answer and runs nothing.
 */
import * as z from 'zod';
import { durationUpTo } from './durations';
import { invalidField } from './paths';
import { parseTemplate, type Reference, TemplateSyntaxError } from './references';
import { findPreset } from './signature-presets';
import { storedIdempotency } from './stored-ticket';
import { strictObject } from './strict';

/** The longest window a key is kept: 7 days. */
export const MAX_IDEMPOTENCY_WINDOW_MS = 7 * 24 * 3_600_000;
export const DEFAULT_IDEMPOTENCY_WINDOW = '24h';
/** The longest key template a ticket may write. */
export const MAX_IDEMPOTENCY_TEMPLATE = 256;
/** The longest value a key may resolve to (longer values are refused at consumption). */
export const MAX_IDEMPOTENCY_KEY = 256;

const REQUEST_ROOTS: readonly Reference['root'][] = ['headers', 'body', 'params'];

export const idempotencyInputSchema = strictObject({
  key: z.string().describe('One reference of the request: ${headers[name]}, ${body[path]...} or ${params[path]...}.'),
  window: z
    .string()
    .optional()
    .describe("How long a successful key is kept: a number and s, m, h or d ('90s', '30m', '24h', '7d'); at most 7 days; default '24h'."),
}).describe('Extension: a second consumption with the same key within the window answers the first answer and runs nothing.');

export type StoredIdempotency = z.infer<typeof storedIdempotency>;

/** A window's length in ms, or null when it is not one (0, negative, over 7 days, garbage). */
export function windowMs(window: string): number | null {
  return durationUpTo(window, MAX_IDEMPOTENCY_WINDOW_MS);
}

/** The reference a stored key reads (registration made sure it is exactly one of the request). */
export function keyReference(key: string): Reference {
  const [segment] = parseTemplate(key);
  if (segment?.kind !== 'ref') throw new Error(`an idempotency key that is not a reference: ${key}`);
  return segment.ref;
}

/** Validates the input form into the stored form; refusals name the field under `path`. */
export function normalizeIdempotency(input: z.output<typeof idempotencyInputSchema>, path: string): StoredIdempotency {
  const window = input.window ?? DEFAULT_IDEMPOTENCY_WINDOW;
  if (windowMs(window) === null) {
    throw invalidField(`${path}.window`, "must be a positive duration of at most 7 days: a number and s, m, h or d, e.g. '90s', '30m', '24h', '7d'");
  }
  const key = input.key;
  if (key.length > MAX_IDEMPOTENCY_TEMPLATE) throw invalidField(`${path}.key`, `is at most ${MAX_IDEMPOTENCY_TEMPLATE} characters`);
  const oneReference = 'must be exactly one reference of the request: ${headers[name]}, ${body[path]...} or ${params[path]...}';
  let segments;
  try {
    segments = parseTemplate(key);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw invalidField(`${path}.key`, `${err.message}; ${oneReference}`);
    throw err;
  }
  const [segment] = segments;
  if (segments.length !== 1 || segment.kind !== 'ref' || !REQUEST_ROOTS.includes(segment.ref.root) || segment.ref.path.length === 0) {
    throw invalidField(`${path}.key`, oneReference);
  }
  return { key, window };
}

/**
 * The ticket's idempotency: its own, none when it says null, else the default key of the provider
 * preset it uses (signature-presets.ts) with the default window.
 */
export function registeredIdempotency(
  input: z.output<typeof idempotencyInputSchema> | null | undefined,
  presetId: string | undefined,
  path: string,
): StoredIdempotency | undefined {
  if (input) return normalizeIdempotency(input, path);
  const key = input === undefined && presetId !== undefined ? findPreset(presetId)?.idempotencyKey : undefined;
  return key ? { key, window: DEFAULT_IDEMPOTENCY_WINDOW } : undefined;
}
