/**
 * The reference grammar of ticket templates (spec 2.5), shared by registration and the run-time
 * templating engine. Only text inside `${ }` is a reference; `$${` writes a literal `${`.
 */
import { invalidField } from './paths';

type ReferenceRoot =
  | 'body'
  | 'params'
  | 'headers'
  | 'placeholder'
  | 'user'
  | 'ip'
  | 'user_agent'
  | 'method'
  | 'record_access'
  | 'response'
  | 'error'
  | 'ticket'
  | 'CLIENT_SECRET';

export interface Reference {
  root: ReferenceRoot;
  path: string[];
}

export type Segment = { kind: 'literal'; text: string } | { kind: 'ref'; ref: Reference; raw: string };

export const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ERROR_KEYS = ['code', 'message', 'detail', 'action', 'path'] as const;
const TICKET_KEYS = ['id', 'service', 'owner', 'consume_id', 'timestamp', 'hash'] as const;

export const VALID_REFERENCE_FORMS =
  'Valid forms: ${body}, ${body[key]...}, ${params}, ${params[key]...}, ${headers[name]}, ' +
  '${placeholder[NAME]}, ${user}, ${user[key]...}, ${ip}, ${user_agent}, ${method}, ${record_access}, ' +
  '${response}, ${response[key]...} (in a Then chain), ' +
  '${error}, ${error[code|message|detail|action|path]...} (in an err chain), ' +
  '${ticket}, ${ticket[id|service|owner|consume_id|timestamp|hash]}, ' +
  '${CLIENT_SECRET} (in headers, data and params of a req action that names secretName); ' +
  'write $${...} for a literal ${...}.';

/** A template or reference that does not follow the grammar; `validateTemplate` adds the field path. */
export class TemplateSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

/** Where in a ticket a template stands, which decides the references it may hold. */
export interface TemplateContext {
  /** Inside a Then chain (exe.actions), at any depth: ${response} resolves. */
  inThen: boolean;
  /** Inside an err chain, at any depth: ${error} resolves. */
  inErr: boolean;
  /** A value of headers, data or params of a req action that names secretName. */
  allowClientSecret: boolean;
  /** When set, only these roots are allowed (the value rows of a cond action). */
  only?: readonly ReferenceRoot[];
}

type Token = { kind: 'literal'; text: string } | { kind: 'ref'; inner: string; start: number; end: number };

/** Splits text into literal runs and `${...}` spans (end = index after the closing brace). */
function scan(text: string): Token[] {
  const tokens: Token[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
      continue;
    }
    if (!text.startsWith('${', i)) {
      literal += text[i];
      i += 1;
      continue;
    }
    // A key may hold '}' (e.g. ${body[a}b]}), so the reference ends at the first '}' outside brackets.
    let depth = 0;
    let end = -1;
    for (let j = i + 2; j < text.length; j++) {
      const ch = text[j];
      if (ch === '[') depth++;
      else if (ch === ']') depth--;
      else if (ch === '}' && depth <= 0) {
        end = j;
        break;
      }
    }
    if (end < 0) {
      throw new TemplateSyntaxError(`"${text.slice(i)}" opens \${ without a closing }. ${VALID_REFERENCE_FORMS}`);
    }
    if (literal) tokens.push({ kind: 'literal', text: literal });
    literal = '';
    tokens.push({ kind: 'ref', inner: text.slice(i + 2, end), start: i, end: end + 1 });
    i = end + 1;
  }
  if (literal) tokens.push({ kind: 'literal', text: literal });
  return tokens;
}

const REFERENCE_SHAPE = /^([A-Za-z_]+)((?:\[[^[\]]+\])*)$/;

function refuse(inner: string, why: string): never {
  throw new TemplateSyntaxError(`\${${inner}} ${why}. ${VALID_REFERENCE_FORMS}`);
}

/** Parses the text between `${` and `}`. `data` (the older name of body) parses as body. */
function parseReference(inner: string): Reference {
  const shape = REFERENCE_SHAPE.exec(inner);
  if (!shape) refuse(inner, 'is not a valid reference');
  const name = shape[1];
  const path = [...shape[2].matchAll(/\[([^[\]]+)\]/g)].map((m) => m[1]);
  if (name === 'result') {
    throw new TemplateSyntaxError(
      `\${${inner}} was removed: use \${response} (e.g. \${response[body][key]}) in a Then chain (exe.actions). ${VALID_REFERENCE_FORMS}`,
    );
  }
  const root = name === 'data' ? 'body' : name;
  switch (root) {
    case 'body':
    case 'params':
    case 'user':
    case 'response':
      return { root, path };
    case 'headers':
      if (path.length !== 1) refuse(inner, 'must name one header: ${headers[name]}');
      return { root, path };
    case 'placeholder':
      if (path.length !== 1 || !PLACEHOLDER_NAME.test(path[0])) {
        refuse(inner, 'must name one placeholder matching ^[A-Za-z_][A-Za-z0-9_]*$: ${placeholder[NAME]}');
      }
      return { root, path };
    case 'ip':
    case 'user_agent':
    case 'method':
    case 'record_access':
    case 'CLIENT_SECRET':
      if (path.length) refuse(inner, `takes no keys: write \${${root}}`);
      return { root, path };
    case 'error':
      if (path.length && !(ERROR_KEYS as readonly string[]).includes(path[0])) {
        refuse(inner, `reads only ${ERROR_KEYS.join(', ')}`);
      }
      return { root, path };
    case 'ticket':
      if (path.length > 1 || (path.length === 1 && !(TICKET_KEYS as readonly string[]).includes(path[0]))) {
        refuse(inner, `reads only one of ${TICKET_KEYS.join(', ')}`);
      }
      return { root, path };
    default:
      return refuse(inner, 'is not a valid reference');
  }
}

/** Splits a template into literal text and references. Throws TemplateSyntaxError on a bad reference. */
export function parseTemplate(text: string): Segment[] {
  return scan(text).map(
    (token): Segment => (token.kind === 'literal' ? token : { kind: 'ref', ref: parseReference(token.inner), raw: text.slice(token.start, token.end) }),
  );
}

/** True when the text is exactly one valid reference (at run time it keeps the value's type). */
export function isWholeReference(text: string): boolean {
  try {
    const segments = parseTemplate(text);
    return segments.length === 1 && segments[0].kind === 'ref';
  } catch {
    return false;
  }
}

/** True when the text holds at least one `${...}` span (escaped `$${` does not count). */
export function hasReference(text: string): boolean {
  try {
    return scan(text).some((token) => token.kind === 'ref');
  } catch {
    return true;
  }
}

/** Rewrites the older `${data...}` to `${body...}`; everything else is left byte for byte. */
export function rewriteLegacyReferences(text: string): string {
  if (!text.includes('${data')) return text;
  let tokens: Token[];
  try {
    tokens = scan(text);
  } catch {
    return text;
  }
  let out = '';
  let from = 0;
  for (const token of tokens) {
    if (token.kind === 'ref' && /^data(\[|$)/.test(token.inner)) {
      out += `${text.slice(from, token.start)}\${body${token.inner.slice(4)}}`;
      from = token.end;
    }
  }
  return out + text.slice(from);
}

function contextRefusal(ref: Reference, raw: string, ctx: TemplateContext): string | undefined {
  if (ctx.only && !ctx.only.includes(ref.root)) {
    return `${raw} is not allowed here: only ${ctx.only.map((root) => `\${${root}...}`).join(' and ')} may be used`;
  }
  if (ref.root === 'response' && !ctx.inThen) {
    return `${raw} can only be read inside a Then chain (exe.actions of the action whose answer it reads)`;
  }
  if (ref.root === 'error' && !ctx.inErr) return `${raw} can only be read inside an err chain`;
  if (ref.root === 'CLIENT_SECRET' && !ctx.allowClientSecret) {
    return `${raw} is allowed only in values of headers, data and params of a req action that names secretName`;
  }
  return undefined;
}

/** Checks every reference of a template against the grammar and where it stands. Throws INVALID_PARAMETER naming `path`. */
export function validateTemplate(text: string, ctx: TemplateContext, path: string): void {
  let segments: Segment[];
  try {
    segments = parseTemplate(text);
  } catch (error) {
    if (error instanceof TemplateSyntaxError) throw invalidField(path, error.message);
    throw error;
  }
  for (const segment of segments) {
    if (segment.kind !== 'ref') continue;
    const why = contextRefusal(segment.ref, segment.raw, ctx);
    if (why) throw invalidField(path, `${why}. ${VALID_REFERENCE_FORMS}`);
  }
}

const ROW_KEY_SHAPE = /^([^[\]]+)((?:\[[^[\]]+\])*)$/;

/** Splits a condition row key: 'order[id]' → ['order', 'id']; '' → [] (the whole value). Throws on a malformed key. */
export function parseRowKey(key: string): string[] {
  if (key === '') return [];
  const shape = ROW_KEY_SHAPE.exec(key);
  if (!shape) {
    throw new TemplateSyntaxError(`"${key}" is not a valid key: write a name, then [key] for each level, e.g. order[id]`);
  }
  return [shape[1], ...[...shape[2].matchAll(/\[([^[\]]+)\]/g)].map((m) => m[1])];
}
