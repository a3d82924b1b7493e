/**
 * Paths of condition keys: 'order[id]' is the field id inside order. Keys are literal text; a key that
 * is not of the form `head[seg][seg]...` (an unclosed bracket, text after a bracket) is one field name.
 */

const KEY_SHAPE = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const SEGMENT = /\[([^[\]]*)\]/g;

/** 'order[id]' -> ['order', 'id'], 'id' -> ['id'], '' -> [] (the whole target). */
export function parseKey(key: string): string[] {
  if (key === '') return [];
  const shape = KEY_SHAPE.exec(key);
  if (!shape) return [key];
  const path = [shape[1]];
  for (const segment of shape[2].matchAll(SEGMENT)) path.push(segment[1]);
  return path;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A canonical array index ('0', '12'; not '01', '-1', '1.0') below the array's length. */
function arrayIndex(list: unknown[], segment: string): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
  const index = Number(segment);
  return index < list.length ? index : undefined;
}

/**
 * Reads own fields and array elements only (never 'length', never the prototype). A field holding
 * undefined counts as missing: JSON has no undefined, so such a field was never sent.
 */
export function readPath(root: unknown, path: string[]): { found: boolean; value?: unknown } {
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current)) {
      const index = arrayIndex(current, segment);
      if (index === undefined) return { found: false };
      current = current[index];
    } else if (isRecord(current) && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else {
      return { found: false };
    }
  }
  return current === undefined ? { found: false } : { found: true, value: current };
}

/** Sets an own data property, so a '__proto__' key stays a plain field. */
function withField(record: Record<string, unknown>, segment: string, value: unknown): Record<string, unknown> {
  const copy = { ...record };
  Object.defineProperty(copy, segment, { value, writable: true, enumerable: true, configurable: true });
  return copy;
}

/**
 * Returns a new root with value at path; the input is never mutated (containers on the path are
 * copied). Missing fields on the way are created as objects. A path that runs through a present
 * non-container (a string, number, boolean or null) or an array position that does not exist cannot
 * be written: the root comes back unchanged rather than overwriting what the request sent.
 */
export function writePath(root: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [segment, ...rest] = path;
  if (Array.isArray(root)) {
    const index = arrayIndex(root, segment);
    if (index === undefined) return root;
    const child = writePath(root[index], rest, value);
    if (child === root[index] && rest.length > 0) return root;
    const copy = root.slice();
    copy[index] = child;
    return copy;
  }
  const record = root === undefined ? {} : root;
  if (!isRecord(record)) return root;
  const existing = Object.hasOwn(record, segment) ? record[segment] : undefined;
  if (rest.length > 0 && existing !== undefined && !isRecord(existing) && !Array.isArray(existing)) return root;
  const child = writePath(existing, rest, value);
  if (rest.length > 0 && child === existing && existing !== undefined) return root;
  return withField(record, segment, child);
}
