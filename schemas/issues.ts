import type { z } from 'zod';
import { invalidField, joinPath, type PathSegment, plainPath } from './paths';
import { isTellingKey, pickUnknownKey } from './strict';

type Issue = z.core.$ZodIssue;

/**
 * The two readings of a zod issue list. Each difference between them shows in the messages sent, so
 * both are kept, here, side by side:
 * - `definition` (parseOrRefuse: ticket definitions, forwarding and secureRequest bodies, query
 *   strings): the deepest branch of a failed union; an unknown key that means an older format
 *   (schemas/strict.ts) before any other issue and before the other unknown keys; zod's text made
 *   readable; the path by joinPath (`headers["X-Id"]`).
 * - `body` (src/platform/validation.ts: the platform's bodies and the pstr re-check): zod's first issue
 *   and first unknown key as they come; zod's text as is; the path by plainPath (`attributes.my-claim`).
 * Both describe a refused record key by the key's own rule instead of zod's "Invalid key in record".
 */
export type IssueReading = 'definition' | 'body';

/** What an issue list says: the field (its path, '' for the whole input) and the text about it, without the field. */
export interface IssueRead {
  field: string;
  message: string;
  /** For unknown keys, the field of every one, in zod's order; undefined for any other issue. */
  unknownFields?: string[];
}

/** In a failed union, follows the alternative that got furthest into the value (its issue has the longest path). */
function deepestIssue(issue: Issue, base: readonly PathSegment[]): { issue: Issue; path: PathSegment[] } {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { issue, path };
  let best: Issue | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first && first.path.length > (best?.path.length ?? 0)) best = first;
  }
  return best ? deepestIssue(best, path) : { issue, path };
}

function readable(message: string): string {
  if (/^Invalid input: expected \w+, received undefined$/.test(message)) return 'is required';
  return message.replace(/^Invalid input: /, '');
}

/** Reads the first issue of `issues` (see IssueReading) into its field and message; `base` heads the path. */
export function readIssues(issues: readonly Issue[], reading: IssueReading, base = ''): IssueRead {
  const definition = reading === 'definition';
  const join = definition ? joinPath : plainPath;
  const first = (definition && issues.find((i) => i.code === 'unrecognized_keys' && i.keys.some(isTellingKey))) || issues[0];
  const { issue, path } = definition ? deepestIssue(first, []) : { issue: first, path: [...first.path] };
  // A bad record key: the key's own rule says more than "Invalid key in record".
  const text = issue.code === 'invalid_key' && issue.issues[0] ? issue.issues[0].message : issue.message;
  const message = definition ? readable(text) : text;
  if (issue.code !== 'unrecognized_keys' || issue.keys.length === 0) return { field: join(path, base), message };
  const chosen = definition ? pickUnknownKey(issue.keys) : issue.keys[0];
  return { field: join([...path, chosen], base), message, unknownFields: issue.keys.map((key) => join([...path, key], base)) };
}

/** Parses with a zod schema; a refusal is INVALID_PARAMETER naming the path of the first issue (the `definition` reading). */
export function parseOrRefuse<T extends z.ZodType>(schema: T, input: unknown, base = ''): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const { field, message } = readIssues(result.error.issues, 'definition', base);
    throw invalidField(field, message);
  }
  return result.data;
}
