/**
 * ${CLIENT_SECRET} in the headers, data and params of a req action. Each written ${CLIENT_SECRET} is turned
 * into a random marker before templating, so a value the consumer sends that reads "${CLIENT_SECRET}" is
 * never replaced by the secret; after templating the marker becomes the secret (what is sent) or the text
 * ${CLIENT_SECRET} (what is shown in the action row).
 */
import { parseTemplate } from '../../schemas/references';

export const CLIENT_SECRET_TEXT = '${CLIENT_SECRET}';

/** A marker no consumer can guess (128 random bits), made of characters templating leaves alone. */
export function newSecretMarker(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `CLIENTSECRET${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function markString(template: string, marker: string): string {
  let segments;
  try {
    segments = parseTemplate(template);
  } catch {
    return template; // Left for the renderer to report.
  }
  if (!segments.some((s) => s.kind === 'ref' && s.ref.root === 'CLIENT_SECRET')) return template;
  // Literal text is written back with its `${` escaped, so the template means what it meant (a function
  // replacement, as '$$' in a replacement string means one '$').
  return segments
    .map((s) => (s.kind === 'literal' ? s.text.replaceAll('${', () => '$${') : s.ref.root === 'CLIENT_SECRET' ? marker : s.raw))
    .join('');
}

/** Replaces every ${CLIENT_SECRET} reference in the strings of a template value (any depth; keys untouched). */
export function markClientSecret<T>(template: T, marker: string): T {
  return mapStrings(template, (text) => markString(text, marker));
}

/** Replaces the marker in every string of a templated value (any depth; keys untouched). */
export function fillSecretMarker<T>(value: T, marker: string, replacement: string): T {
  return mapStrings(value, (text) => (text.includes(marker) ? text.split(marker).join(replacement) : text));
}

function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)])) as T;
  }
  return value;
}
