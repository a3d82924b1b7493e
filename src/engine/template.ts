/**
 * Run-time templating of action values (spec 2.5). Pure: reads only the scope it is given.
 * Every string at any depth is templated (object keys are not); a string that is exactly one
 * reference keeps the value's type; in longer text each value becomes text (objects as compact JSON).
 */
import { parseTemplate, type Reference, type Segment, TemplateSyntaxError } from '../../schemas/references';
import type { ActionContext, ErrorValue } from './context';
import { ActionError } from '../wire/errors';
import { readPath } from './paths';

export interface RenderOptions {
  /** Applied to the text of each reference inserted into longer text (req url: percent-encoding). */
  encode?: (text: string) => string;
  /** Leave ${CLIENT_SECRET} as written, for the req module to substitute where it is allowed. */
  keepClientSecret?: boolean;
}

/** What the references of one action resolve against. */
export interface TemplateScope {
  ctx: ActionContext;
  /** Present inside a Then chain: the answer of the enclosing action (${response}). */
  response?: { value: unknown };
  /** Present inside an err chain: the failure it handles (${error}). */
  error?: ErrorValue;
}

/** What authorization and cookie headers read, so a credential never leaves through a template. */
const REDACTED = '<redacted>';
const REDACTED_HEADERS = new Set(['authorization', 'cookie']);
const CLIENT_SECRET_TOKEN = '${CLIENT_SECRET}';

/** Templates every string in `value` at any depth; throws ActionError on a reference that does not resolve. */
export function renderValue(value: unknown, scope: TemplateScope, options: RenderOptions = {}): unknown {
  if (typeof value === 'string') return renderString(value, scope, options);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, scope, options));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValue(item, scope, options)]));
  }
  return value;
}

/** Templates one string. */
export function renderString(text: string, scope: TemplateScope, options: RenderOptions = {}): unknown {
  if (!text.includes('${')) return text;
  let segments: Segment[];
  try {
    segments = parseTemplate(text);
  } catch (err) {
    if (err instanceof TemplateSyntaxError)
      throw new ActionError('INTERNAL_ERROR', `A stored template cannot be read: ${err.message}`, undefined, { cause: err });
    throw err;
  }
  if (segments.length === 1 && segments[0].kind === 'ref') {
    const ref = segments[0].ref;
    if (ref.root === 'CLIENT_SECRET' && options.keepClientSecret) return CLIENT_SECRET_TOKEN;
    const value = resolveReference(ref, segments[0].raw, scope);
    if (options.keepClientSecret) refuseSecretToken(value, segments[0].raw);
    return value;
  }
  let out = '';
  for (const segment of segments) {
    if (segment.kind === 'literal') {
      // `$${CLIENT_SECRET}` is a literal the owner wrote; it must not turn into the substitution token.
      if (options.keepClientSecret && segment.text.includes(CLIENT_SECRET_TOKEN)) {
        throw new ActionError('ACTION_FORBIDDEN', 'A literal $${CLIENT_SECRET} cannot be sent by an action that substitutes the secret.');
      }
      out += segment.text;
      continue;
    }
    if (segment.ref.root === 'CLIENT_SECRET' && options.keepClientSecret) {
      out += CLIENT_SECRET_TOKEN;
      continue;
    }
    const value = resolveReference(segment.ref, segment.raw, scope);
    const inserted = asText(value);
    if (options.keepClientSecret) refuseSecretToken(inserted, segment.raw);
    out += options.encode ? options.encode(inserted) : inserted;
  }
  return out;
}

/** A value's text inside longer text: strings as they are, everything else as compact JSON. */
export const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A value a reference brought in may not carry the secret's substitution token: the request's
 * sender would otherwise choose where the secret goes.
 */
function refuseSecretToken(value: unknown, raw: string): void {
  if (!containsSecretToken(value)) return;
  throw new ActionError('ACTION_FORBIDDEN', `The value of ${raw} contains \${CLIENT_SECRET}, which only the ticket itself may write.`, {
    reference: raw,
  });
}

function containsSecretToken(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(CLIENT_SECRET_TOKEN);
  if (Array.isArray(value)) return value.some(containsSecretToken);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => key.includes(CLIENT_SECRET_TOKEN) || containsSecretToken(item));
  }
  return false;
}

const pathNotFound = (raw: string) => new ActionError('PATH_NOT_FOUND', `${raw} does not resolve: the request has no value there.`, { reference: raw });

function readAt(root: unknown, path: string[], raw: string): unknown {
  const read = readPath(root, path);
  if (!read.found) throw pathNotFound(raw);
  return read.value;
}

/** The value of one reference, or ActionError PATH_NOT_FOUND / PLACEHOLDER_MISSING / AUTH_REQUIRED. */
function resolveReference(ref: Reference, raw: string, scope: TemplateScope): unknown {
  const { ctx } = scope;
  switch (ref.root) {
    case 'body':
      return readAt(ctx.body, ref.path, raw);
    case 'params':
      return readAt(ctx.params, ref.path, raw);
    case 'headers': {
      const name = ref.path[0].toLowerCase();
      if (!Object.hasOwn(ctx.headers, name)) throw pathNotFound(raw);
      return REDACTED_HEADERS.has(name) ? REDACTED : ctx.headers[name];
    }
    case 'placeholder': {
      const name = ref.path[0];
      const read = readPath(ctx.placeholders, [name]);
      if (!read.found) {
        throw new ActionError('PLACEHOLDER_MISSING', `${raw} was never captured by the condition.`, { placeholder: name });
      }
      return read.value;
    }
    case 'user':
      if (!ctx.user) throw new ActionError('AUTH_REQUIRED', `${raw} can only be read on a signed-in request.`, { reference: raw });
      return readAt(ctx.user, ref.path, raw);
    case 'record_access':
      if (!ctx.user) throw new ActionError('AUTH_REQUIRED', `${raw} can only be read on a signed-in request.`, { reference: raw });
      if (ctx.record_access === undefined) throw pathNotFound(raw);
      return ctx.record_access;
    case 'ip':
      return ctx.ip;
    case 'user_agent':
      return ctx.user_agent;
    case 'method':
      return ctx.method;
    case 'ticket':
      return readAt(ctx.ticket, ref.path, raw);
    case 'response':
      if (!scope.response) throw pathNotFound(raw);
      return readAt(scope.response.value, ref.path, raw);
    case 'error':
      if (!scope.error) throw pathNotFound(raw);
      return readAt(scope.error, ref.path, raw);
    case 'CLIENT_SECRET':
      throw new ActionError('INTERNAL_ERROR', `${raw} can only be filled in by a req action that names secretName.`);
  }
}
