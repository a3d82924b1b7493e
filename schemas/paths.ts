import { FieldIssueError } from './field-issue';

export type PathSegment = string | number | symbol;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends one segment to a field path: `actions` + 0 → `actions[0]`, + 'exe' → `actions[0].exe`. */
export function childPath(path: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${path}[${segment}]`;
  const key = String(segment);
  if (IDENTIFIER.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Joins segments as a field path a person can read, e.g. `actions[1].exe.headers["X-Id"]`. */
export function joinPath(segments: readonly PathSegment[], base = ''): string {
  return segments.reduce<string>((path, segment) => childPath(path, segment), base);
}

/**
 * Joins segments as the platform's body refusals have always named a field: keys bare, indexes in
 * brackets (`attributes.my-claim`, `destinations[0]`). For a key that is not an identifier it differs from
 * joinPath (`attributes["my-claim"]`); both texts are on the wire (schemas/issues.ts), so both stay.
 */
export function plainPath(segments: readonly PathSegment[], base = ''): string {
  let out = base;
  for (const part of segments) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** The refusal of one field: INVALID_PARAMETER with a message that starts with the field path. */
export function invalidField(path: string, message: string): FieldIssueError {
  return new FieldIssueError({ code: 'INVALID_PARAMETER', message: path ? `${path}: ${message}` : message, field: path });
}
