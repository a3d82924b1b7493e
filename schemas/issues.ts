import type { z } from 'zod';
import { invalidField, joinPath, type PathSegment } from './paths';
import { isTellingKey, pickUnknownKey } from './strict';

type Issue = z.core.$ZodIssue;

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

/** Turns the first zod issue (an older-format key first) into INVALID_PARAMETER naming the field path. */
function issueToError(issues: readonly Issue[], base = '') {
  const first = issues.find((i) => i.code === 'unrecognized_keys' && i.keys.some(isTellingKey)) ?? issues[0];
  const { issue, path } = deepestIssue(first, []);
  if (issue.code === 'unrecognized_keys') path.push(pickUnknownKey(issue.keys));
  return invalidField(joinPath(path, base), readable(issue.message));
}

/** Parses with a zod schema; a refusal is INVALID_PARAMETER naming the path of the first issue. */
export function parseOrRefuse<T extends z.ZodType>(schema: T, input: unknown, base = ''): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw issueToError(result.error.issues, base);
  return result.data;
}
