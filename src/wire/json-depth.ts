/**
 * Nesting limits of JSON read from outside. Every JSON the Worker accepts is measured here before
 * anything walks it recursively (zod, templating, JSON.stringify all overflow the stack a few
 * thousand levels down); both functions below are iterative, so any depth is safe to measure.
 */

/** Deepest nesting of arrays/objects in JSON text, counted without parsing (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth--;
  }
  return max;
}

interface Frame {
  value: object;
  depth: number;
  parent: Frame | null;
  key: string | number | null;
}

/**
 * The path to the first array or object nested deeper than `limit` (the top-level value is level 1),
 * or null when the whole value stays within it. Same count as jsonDepth on the value's JSON text.
 */
export function pathBeyondDepth(value: unknown, limit: number): (string | number)[] | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Frame[] = [{ value, depth: 1, parent: null, key: null }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (frame.depth > limit) return pathOf(frame);
    const entries: [string | number, unknown][] = Array.isArray(frame.value) ? frame.value.map((v, i) => [i, v]) : Object.entries(frame.value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return null;
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Frame | null = frame; at && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}
