import type { Operator } from '../../schemas/ticket-types';

type Canonical = '=' | '!=' | '>' | '>=' | '<' | '<=';

const WORD_FORMS: Record<Operator, Canonical> = {
  '=': '=',
  '!=': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
  eq: '=',
  ne: '!=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/** eq, ne, gt, gte, lt, lte -> '=', '!=', '>', '>=', '<', '<='. */
export const canonicalOperator = (operator: Operator): Canonical => WORD_FORMS[operator];

/**
 * Strict structural equality: primitives by ===, arrays element by element in order, objects by
 * their own keys whatever the key order ({a:1,b:2} equals {b:2,a:1}). Used for '=' and '!=' when a
 * field holds an object or array, or a resolved cond value does.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}

/**
 * Ordering between two numbers (numeric) or two strings. On strings '>=' is starts-with and '<='
 * is ends-with (spec 2.2 rule 2; the previous rules read '<=' as plain order: `stringLte: 'order'`);
 * '>' and '<' are plain lexicographic comparisons by UTF-16 code unit (locale independent, so the
 * same on every machine). Anything else never orders.
 */
export function ordered(actual: unknown, operator: '>' | '>=' | '<' | '<=', expected: unknown, stringLte: 'ends-with' | 'order' = 'ends-with'): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') {
    if (operator === '>') return actual > expected;
    if (operator === '>=') return actual >= expected;
    if (operator === '<') return actual < expected;
    return actual <= expected;
  }
  if (typeof actual === 'string' && typeof expected === 'string') {
    if (operator === '>') return actual > expected;
    if (operator === '>=') return actual.startsWith(expected);
    if (operator === '<') return actual < expected;
    return stringLte === 'order' ? actual <= expected : actual.endsWith(expected);
  }
  return false;
}

/** One expected value (not a list). */
function compareOne(actual: unknown, operator: Canonical, expected: unknown, present: boolean): boolean {
  const isEqual = present && deepEqual(actual, expected);
  if (expected === undefined) {
    // '= undefined' passes on a missing field, '!= undefined' on a present one (null included).
    if (operator === '=') return !present;
    if (operator === '!=') return present;
    return false;
  }
  if (expected === null) {
    // '= null' needs a present null; '!= null' passes on anything else, a missing field included.
    if (operator === '=') return isEqual;
    if (operator === '!=') return !isEqual;
    return false;
  }
  // A field the request does not carry is a mismatch for every other comparison, '!=' included.
  if (!present) return false;
  if (operator === '=') return isEqual;
  if (operator === '!=') return !isEqual;
  return ordered(actual, operator, expected);
}

/**
 * Does the field (actual; present = the request carries it) pass `operator expected`?
 * A list passes '=' and the ordering operators when any member passes, and '!=' when no member
 * matches. On a missing field a list '!=' follows the missing-field rule: it passes only when the list
 * holds null (the row then compares with null, and a missing field is not null). An empty list never
 * passes '=' or ordering. undefined is never a list member (dropped).
 */
export function compare(actual: unknown, operator: Operator, expected: unknown, present: boolean): boolean {
  const op = canonicalOperator(operator);
  if (!present) actual = undefined;
  if (!Array.isArray(expected)) return compareOne(actual, op, expected, present);
  const members = expected.filter((member) => member !== undefined);
  if (op === '!=') {
    if (!present) return members.includes(null);
    return !members.some((member) => compareOne(actual, '=', member, present));
  }
  return members.some((member) => compareOne(actual, op, member, present));
}
