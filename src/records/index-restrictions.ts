import type { IndexRestriction, IndexValue, RestrictionCondition } from './types';

/** The word forms are aliases of the symbols: 'gte' is '>=' (starts-with on strings), and so on. */
const CANONICAL: Record<RestrictionCondition, '=' | '!=' | '>' | '>=' | '<' | '<='> = {
  '=': '=',
  eq: '=',
  '!=': '!=',
  ne: '!=',
  '>': '>',
  gt: '>',
  '>=': '>=',
  gte: '>=',
  '<': '<',
  lt: '<',
  '<=': '<=',
  lte: '<=',
};

/**
 * Compares a referencing record's index value (left) with a restriction value (right). '=' and '!='
 * are strict (1 is not '1'). Ordering needs two numbers or two strings; on strings '>=' means
 * "starts with" and '<=' is a plain lesser-or-equal comparison (spec 2.4). Booleans only take '=' / '!='.
 */
export function meetsCondition(left: IndexValue, condition: RestrictionCondition, right: IndexValue): boolean {
  const op = CANONICAL[condition];
  if (op === '=') return left === right;
  if (op === '!=') return left !== right;
  if (typeof left === 'string' && typeof right === 'string') {
    if (op === '>=') return left.startsWith(right);
    if (op === '>') return left > right;
    if (op === '<') return left < right;
    return left <= right;
  }
  if (typeof left === 'number' && typeof right === 'number') {
    if (op === '>=') return left >= right;
    if (op === '>') return left > right;
    if (op === '<') return left < right;
    return left <= right;
  }
  return false;
}

/** value <= v <= range, plain comparisons of two numbers or two strings; a bound left out is open. */
function inRange(value: IndexValue, low: IndexValue | undefined, high: IndexValue): boolean {
  const sameOrderable = (bound: IndexValue) =>
    (typeof value === 'number' && typeof bound === 'number') || (typeof value === 'string' && typeof bound === 'string');
  if (!sameOrderable(high) || (low !== undefined && !sameOrderable(low))) return false;
  return (low === undefined || low <= value) && value <= high;
}

function meetsRestriction(value: IndexValue, restriction: IndexRestriction): boolean {
  if (restriction.range !== undefined) return inRange(value, restriction.value, restriction.range);
  if (restriction.value !== undefined) return meetsCondition(value, restriction.condition ?? '=', restriction.value);
  return true;
}

/**
 * Whether a referencing record's index satisfies the referenced record's
 * referencing_index_restrictions. No restrictions: always. Otherwise the record must have an index
 * whose name is one of the restricted names (a record has one index, so different names are
 * alternatives), and its value must meet every restriction written for that name.
 */
export function indexMeetsRestrictions(index: { name: string; value: IndexValue } | undefined, restrictions: IndexRestriction[] | null | undefined): boolean {
  if (!restrictions || restrictions.length === 0) return true;
  if (!index) return false;
  const forName = restrictions.filter((restriction) => restriction.name === index.name);
  return forName.length > 0 && forName.every((restriction) => meetsRestriction(index.value, restriction));
}
