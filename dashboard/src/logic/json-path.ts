/**
 * Field paths as the registry writes them (`actions[0].exe.url`, `headers["X-Id"]`, schemas/paths.ts):
 * parsed to segments, read and written immutably in a JSON value, and read off a refusal message.
 */
import { childPath, type PathSegment } from '../../../schemas/paths';

export type Segment = string | number;

const SEGMENT = /^(?:\.?([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** The segments of a field path, or null when it is not one. '' is the whole value. */
export function parsePath(path: string): Segment[] | null {
  const segments: Segment[] = [];
  let rest = path;
  while (rest) {
    const m = SEGMENT.exec(rest);
    if (!m) return null;
    if (m[1] !== undefined) segments.push(m[1]);
    else if (m[2] !== undefined) segments.push(Number(m[2]));
    else segments.push(JSON.parse(m[3]) as string);
    rest = rest.slice(m[0].length);
  }
  return segments;
}

export const joinSegments = (segments: readonly PathSegment[]): string => segments.reduce<string>((p, s) => childPath(p, s), '');

export function getAt(value: unknown, segments: readonly Segment[]): unknown {
  let at: unknown = value;
  for (const s of segments) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[s];
  }
  return at;
}

/** A copy of `value` with `next` at the path; `undefined` removes an object member (an array item stays, set to undefined only by splice callers). */
export function setAt(value: unknown, segments: readonly Segment[], next: unknown): unknown {
  if (segments.length === 0) return next;
  const [head, ...rest] = segments;
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...value] : [];
    list[head] = setAt(list[head], rest, next);
    return list;
  }
  const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
  const child = setAt(object[head], rest, next);
  if (child === undefined) delete object[head];
  else object[head] = child;
  return object;
}

/** The field a refusal names: its detail.field (every refusal of a definition carries one); '' when none. */
export const refusedField = (detail: { field?: unknown } | undefined): string => (typeof detail?.field === 'string' ? detail.field : '');

/**
 * The path of the nearest shown input for a refused field: the field itself, else its closest ancestor
 * that has an input (a refusal inside a JSON-valued field lands on that field). null when none is shown.
 */
export function nearestShownPath(field: string, shown: ReadonlySet<string>): string | null {
  const segments = parsePath(field);
  if (!segments) return null;
  for (let n = segments.length; n > 0; n--) {
    const path = joinSegments(segments.slice(0, n));
    if (shown.has(path)) return path;
  }
  return null;
}
