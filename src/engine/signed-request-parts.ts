/**
 * The parts of a request that the template extensions read (docs/signature-extensions.md): the URL
 * the provider called, a query parameter, a body field, and the form parameters sorted as Twilio
 * signs them. Pure; each answers undefined when the request does not have the part.
 */

const utf8 = new TextDecoder();

/**
 * The URL the provider called: `publicUrl` (scheme, host and path, set by the owner behind a proxy
 * or a custom domain) with the query as received, else the URL as received.
 */
export function calledUrl(receivedUrl: string | undefined, publicUrl: string | undefined): string | undefined {
  if (typeof receivedUrl !== 'string' || receivedUrl === '') return undefined;
  if (!publicUrl) return receivedUrl;
  const query = receivedUrl.indexOf('?');
  return query === -1 ? publicUrl : publicUrl + receivedUrl.slice(query);
}

/** The first value of a query parameter of `url`. */
export function queryValue(url: string | undefined, name: string): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}

const isForm = (headers: Record<string, string>) => /^\s*application\/x-www-form-urlencoded\b/i.test(headers['content-type'] ?? '');

/**
 * Twilio's form string: every form parameter of the body, names sorted, each name followed by its
 * value (a repeated name's distinct values sorted). '' for an empty body; undefined for a body
 * that is not a form (Twilio then signs the URL alone and binds the body by bodySHA256).
 */
export function sortedForm(rawBody: Uint8Array, headers: Record<string, string>): string | undefined {
  if (rawBody.byteLength === 0) return '';
  if (!isForm(headers)) return undefined;
  const values = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(utf8.decode(rawBody))) {
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  let out = '';
  for (const name of [...values.keys()].sort()) for (const value of [...new Set(values.get(name))].sort()) out += name + value;
  return out;
}

/**
 * A field of the body, by dotted path ('signature.timestamp'): a JSON body's member, or a form
 * body's parameter (its whole name first). Strings as they are, numbers and booleans as written in
 * JSON; an object, a list or null has no value here.
 */
export function bodyField(rawBody: Uint8Array, headers: Record<string, string>, path: string): string | undefined {
  if (isForm(headers)) return new URLSearchParams(utf8.decode(rawBody)).get(path) ?? undefined;
  let value = parsedJson(rawBody);
  if (value === NOT_JSON) return undefined;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return undefined;
}

const NOT_JSON = Symbol('not JSON');
/** A body is parsed once however many field tokens read it (the bytes of one request are one object). */
const parsedBodies = new WeakMap<Uint8Array, unknown>();

function parsedJson(rawBody: Uint8Array): unknown {
  if (parsedBodies.has(rawBody)) return parsedBodies.get(rawBody);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(rawBody));
  } catch {
    value = NOT_JSON;
  }
  parsedBodies.set(rawBody, value);
  return value;
}
