import type { Operator } from '../../schemas/ticket-types';
import { canonicalOperator, deepEqual, ordered } from './operators';

/**
 * '=' under the previous rules (spec 9.2): loose between a number or boolean and its text (1 equals
 * '1', true equals 'true'); everything else strictly, a list included (compared as one value).
 */
export function looseEqual(actual: unknown, expected: unknown): boolean {
  if (deepEqual(actual, expected)) return true;
  const [text, other] = typeof actual === 'string' ? [actual, expected] : [expected, actual];
  if (typeof text !== 'string') return false;
  if (typeof other === 'number') return text.trim() !== '' && Number(text) === other;
  if (typeof other === 'boolean') return text === String(other);
  return false;
}

/**
 * A row's comparison under the previous rules, on a field the request carries (a missing field is an
 * error there, decided before this is called). Unlike the current rules: '=' and '!=' are loose, a
 * list is one value (no "any member"), and '<=' on two strings is plain lexicographic order; '>='
 * on two strings was already starts-with. Ordering never passes on mixed types.
 */
export function compareLegacy(actual: unknown, operator: Operator, expected: unknown): boolean {
  const op = canonicalOperator(operator);
  if (op === '=') return looseEqual(actual, expected);
  if (op === '!=') return !looseEqual(actual, expected);
  return ordered(actual, op, expected, 'order');
}
