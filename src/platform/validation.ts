import type { z } from 'zod';
import { readIssues } from '../../schemas/issues';
import { plainPath } from '../../schemas/paths';
import { readCapped } from '../bytes/read-capped';
import { invalidParameter } from '../wire/errors';
import { jsonDepth, pathBeyondDepth } from '../wire/json-depth';
import { MAX_BODY_BYTES, MAX_DEFINITION_JSON_DEPTH } from '../limits';

/** A field of a body refusal: `a.b[0].c` (schemas/paths.ts plainPath), `body` for the whole body. */
const bodyField = (field: string): string => field || 'body';

/** The sentence and the field of a body refusal, framed from the `body` reading of zod's issues (schemas/issues.ts). */
function refusalOf(issues: readonly z.core.$ZodIssue[]): { message: string; field: string } {
  const { field, message, unknownFields } = readIssues(issues, 'body');
  if (unknownFields) return { message: `Unknown field ${unknownFields.map((f) => `"${bodyField(f)}"`).join(', ')}.`, field: bodyField(field) };
  return { message: `Invalid "${bodyField(field)}": ${message}.`, field: bodyField(field) };
}

/** The field an issue is about; for unknown fields, the first unknown one. */
export function issueField(issue: z.core.$ZodIssue): string {
  return refusalOf([issue]).field;
}

/** One readable sentence naming the field of the first problem zod found. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  return refusalOf([issue]).message;
}

/** Validates an already parsed value (e.g. a body readJsonBody read without a schema); the first problem is INVALID_PARAMETER naming its field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const { message, field } = refusalOf(result.error.issues);
    throw invalidParameter(message, { field });
  }
  return result.data;
}

/**
 * Parses JSON text and refuses it when nested deeper than MAX_DEFINITION_JSON_DEPTH, naming the
 * field where the limit is passed; an empty body is `undefined` (the caller decides whether that is allowed).
 */
function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidParameter('Invalid "body": not valid JSON.', { field: 'body' });
  }
  // The text is scanned first: the path is looked for only in a body that is too deep.
  if (jsonDepth(text) > MAX_DEFINITION_JSON_DEPTH) {
    const field = shortFieldPath(pathBeyondDepth(value, MAX_DEFINITION_JSON_DEPTH) ?? []);
    throw invalidParameter(`Invalid "${field}": nested deeper than ${MAX_DEFINITION_JSON_DEPTH} levels.`, { field, limit: MAX_DEFINITION_JSON_DEPTH });
  }
  return value;
}

/** A field path cut after its first few parts, so a path thousands of levels deep stays readable. */
function shortFieldPath(path: readonly (string | number)[]): string {
  const SHOWN = 8;
  return path.length > SHOWN ? `${bodyField(plainPath(path.slice(0, SHOWN)))}…` : bodyField(plainPath(path));
}

/** Where a body is read from: the Request itself, or a Hono context (its raw request). */
type BodySource = Request | { req: { raw: Request } };

/**
 * Reads a JSON request body (at most `maxBytes`, default MAX_BODY_BYTES) and, given a schema, validates
 * it. An empty body is refused, except with `optional`, where it validates as `{}`. Without a schema the
 * parsed JSON is returned as is.
 */
interface BodyOptions {
  optional?: boolean;
  maxBytes?: number;
}
export async function readJsonBody(source: BodySource, schema?: undefined, options?: BodyOptions): Promise<unknown>;
export async function readJsonBody<S extends z.ZodType>(source: BodySource, schema: S, options?: BodyOptions): Promise<z.infer<S>>;
export async function readJsonBody(source: BodySource, schema?: z.ZodType, options: BodyOptions = {}): Promise<unknown> {
  const request = source instanceof Request ? source : source.req.raw;
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const declared = request.headers.get('content-length');
  if (Number(declared ?? '0') > maxBytes) throw tooLarge(maxBytes);
  // A declared length is the body's length (the runtime frames the body by it): read natively. Without
  // one, read under the cap: the body is refused at the first byte over it, not buffered whole.
  const text = declared !== null ? await request.text() : new TextDecoder().decode(await readCapped(request.body, maxBytes, () => tooLarge(maxBytes)));
  const value = parseJsonText(text);
  if (value === undefined) {
    if (schema && options.optional) return parseWith(schema, {});
    throw invalidParameter('Invalid "body": a JSON object is required.', { field: 'body' });
  }
  return schema ? parseWith(schema, value) : value;
}

const tooLarge = (maxBytes: number) => invalidParameter(`Invalid "body": larger than ${maxBytes} bytes.`, { field: 'body' });
