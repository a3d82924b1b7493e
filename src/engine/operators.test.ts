import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATORS, type Operator } from '../../schemas/ticket-types';
import { canonicalOperator, compare, deepEqual } from './operators';

const ORDERING: Operator[] = ['>', '>=', '<', '<=', 'gt', 'gte', 'lt', 'lte'];
const scalar = fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.integer(), fc.boolean(), fc.constant(null));
const nonNullScalar = fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.integer(), fc.boolean());
const anyOperator = fc.constantFrom(...OPERATORS);
const ordering = fc.constantFrom(...ORDERING);

describe('operators and their word forms', () => {
  it('maps eq, ne, gt, gte, lt, lte to =, !=, >, >=, <, <=', () => {
    expect(['eq', 'ne', 'gt', 'gte', 'lt', 'lte'].map((op) => canonicalOperator(op as Operator))).toEqual(['=', '!=', '>', '>=', '<', '<=']);
  });

  it('property: a word form always gives the same answer as its symbol', () => {
    const pairs: [Operator, Operator][] = [
      ['eq', '='],
      ['ne', '!='],
      ['gt', '>'],
      ['gte', '>='],
      ['lt', '<'],
      ['lte', '<='],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...pairs), scalar, fc.oneof(scalar, fc.array(scalar)), fc.boolean(), ([word, symbol], a, e, present) => {
        expect(compare(a, word, e, present)).toBe(compare(a, symbol, e, present));
      }),
    );
  });
});

describe("'=' and '!=' compare strictly", () => {
  it('1 is not the string 1', () => {
    expect(compare(1, '=', '1', true)).toBe(false);
    expect(compare(1, '!=', '1', true)).toBe(true);
    expect(compare(true, '=', 'true', true)).toBe(false);
    expect(compare('abc', '=', 'abc', true)).toBe(true);
  });

  it('objects and arrays are equal by structure, whatever the key order', () => {
    expect(compare({ a: 1, b: [1, 2] }, '=', { b: [1, 2], a: 1 }, true)).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual({ a: 1 }, [1])).toBe(false);
    expect(compare({ a: '1' }, '=', { a: 1 }, true)).toBe(false);
  });

  it("property: '!=' is the negation of '=' for present non-list values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.oneof(scalar, fc.dictionary(fc.string(), fc.jsonValue())), (actual, expected) => {
        expect(compare(actual, '!=', expected, true)).toBe(!compare(actual, '=', expected, true));
      }),
    );
  });

  it("property: '=' on present scalars is ===", () => {
    fc.assert(
      fc.property(scalar, nonNullScalar, (actual, expected) => {
        expect(compare(actual, '=', expected, true)).toBe(actual === expected);
      }),
    );
  });
});

describe('ordering on two numbers is numeric', () => {
  it('compares numbers as numbers', () => {
    expect(compare(10, '>', 9, true)).toBe(true);
    expect(compare(9, '>', 10, true)).toBe(false);
    expect(compare(10, '>=', 10, true)).toBe(true);
    expect(compare(2, '<', 10, true)).toBe(true);
    expect(compare(10, '<=', 10, true)).toBe(true);
    expect(compare(11, '<=', 10, true)).toBe(false);
  });

  it('property: matches the numeric operators', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (a, b) => {
        expect(compare(a, '>', b, true)).toBe(a > b);
        expect(compare(a, '>=', b, true)).toBe(a >= b);
        expect(compare(a, '<', b, true)).toBe(a < b);
        expect(compare(a, '<=', b, true)).toBe(a <= b);
      }),
    );
  });
});

describe("on two strings '>=' is starts-with and '<=' is ends-with", () => {
  it('checks prefixes and suffixes, not order', () => {
    expect(compare('order_123', '>=', 'order_', true)).toBe(true);
    expect(compare('z', '>=', 'a', true)).toBe(false);
    expect(compare('me@example.com', '<=', '@example.com', true)).toBe(true);
    expect(compare('a', '<=', 'z', true)).toBe(false);
  });

  it("property: '>=' on strings equals startsWith and '<=' equals endsWith", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(compare(a, '>=', b, true)).toBe(a.startsWith(b));
        expect(compare(a, '<=', b, true)).toBe(a.endsWith(b));
      }),
    );
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => compare(a + b, 'gte', a, true)));
  });

  it("'>' and '<' on strings are lexicographic by code unit", () => {
    expect(compare('b', '>', 'a', true)).toBe(true);
    expect(compare('B', '>', 'a', true)).toBe(false);
    expect(compare('10', '<', '9', true)).toBe(true);
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(compare(a, '>', b, true)).toBe(a > b);
        expect(compare(a, '<', b, true)).toBe(a < b);
      }),
    );
  });
});

describe('ordering operators never pass on mixed types, booleans, null or a missing field', () => {
  it('refuses mixed types and booleans', () => {
    expect(compare('10', '>', 9, true)).toBe(false);
    expect(compare(10, '>=', '1', true)).toBe(false);
    expect(compare(true, '>=', true, true)).toBe(false);
    expect(compare(true, '>', false, true)).toBe(false);
    expect(compare([1], '<=', 1, true)).toBe(false);
  });

  it('property: mixed types, booleans and null never order', () => {
    const pairs = fc.oneof(
      fc.tuple(fc.string(), fc.double({ noNaN: true })),
      fc.tuple(fc.double({ noNaN: true }), fc.string()),
      fc.tuple(fc.boolean(), scalar),
      fc.tuple(scalar, fc.boolean()),
      fc.tuple(fc.constant(null), scalar),
      fc.tuple(scalar, fc.constant(null)),
      fc.tuple(
        fc.jsonValue().filter((v) => typeof v === 'object' && v !== null),
        scalar,
      ),
    );
    fc.assert(fc.property(pairs, ordering, ([a, e], op) => !compare(a, op, e, true)));
  });

  it('property: a missing field never orders, nor does comparing with undefined', () => {
    fc.assert(fc.property(fc.oneof(scalar, fc.array(scalar)), ordering, (e, op) => !compare(undefined, op, e, false)));
    fc.assert(fc.property(scalar, ordering, (a, op) => !compare(a, op, undefined, true)));
  });
});

describe('a field the request does not carry is a mismatch except against null or undefined', () => {
  it('fails every operator against a non-null value, != included', () => {
    for (const op of OPERATORS) expect(compare(undefined, op, 5, false)).toBe(false);
    expect(compare(undefined, '!=', 'x', false)).toBe(false);
  });

  it('ignores what actual holds when present is false', () => {
    expect(compare(5, '=', 5, false)).toBe(false);
    expect(compare(null, '=', null, false)).toBe(false);
  });

  it('property: missing fails every comparison with a non-null value', () => {
    fc.assert(fc.property(nonNullScalar, anyOperator, (e, op) => !compare(undefined, op, e, false)));
  });
});

describe('null and undefined keep JavaScript meaning', () => {
  it("'= null' passes only on a present null", () => {
    expect(compare(null, '=', null, true)).toBe(true);
    expect(compare(0, '=', null, true)).toBe(false);
    expect(compare('', '=', null, true)).toBe(false);
    expect(compare(undefined, '=', null, false)).toBe(false);
  });

  it("'!= null' passes on anything else, a missing field included", () => {
    expect(compare(null, '!=', null, true)).toBe(false);
    expect(compare(0, '!=', null, true)).toBe(true);
    expect(compare(undefined, '!=', null, false)).toBe(true);
  });

  it("'= undefined' passes on a missing field only", () => {
    expect(compare(undefined, '=', undefined, false)).toBe(true);
    expect(compare(null, '=', undefined, true)).toBe(false);
    expect(compare('x', '=', undefined, true)).toBe(false);
  });

  it("'!= undefined' passes on a present field, null included", () => {
    expect(compare(null, '!=', undefined, true)).toBe(true);
    expect(compare('', '!=', undefined, true)).toBe(true);
    expect(compare(undefined, '!=', undefined, false)).toBe(false);
  });

  it('ordering operators never pass with null or undefined', () => {
    for (const op of ORDERING) {
      expect(compare(null, op, null, true)).toBe(false);
      expect(compare(undefined, op, undefined, false)).toBe(false);
      expect(compare(5, op, null, true)).toBe(false);
    }
  });
});

describe('a value list', () => {
  it("passes '=' when any member matches", () => {
    expect(compare('b', '=', ['a', 'b'], true)).toBe(true);
    expect(compare('c', '=', ['a', 'b'], true)).toBe(false);
    expect(compare(null, '=', [1, null], true)).toBe(true);
  });

  it('passes the ordering operators when any member matches', () => {
    expect(compare('order_1', '>=', ['cart_', 'order_'], true)).toBe(true);
    expect(compare(5, '>', [10, 4], true)).toBe(true);
    expect(compare(5, '>', [10, 6], true)).toBe(false);
  });

  it("passes '!=' when no member matches", () => {
    expect(compare('c', '!=', ['a', 'b'], true)).toBe(true);
    expect(compare('a', '!=', ['a', 'b'], true)).toBe(false);
  });

  it("on a missing field fails '!=' unless a member is null", () => {
    expect(compare(undefined, '!=', ['a', 'b'], false)).toBe(false);
    expect(compare(undefined, '!=', ['a', null], false)).toBe(true);
  });

  it('never holds undefined as a member', () => {
    expect(compare(undefined, '=', [undefined, 'a'], false)).toBe(false);
    expect(compare(undefined, '=', [undefined], false)).toBe(false);
  });

  it("an empty list passes nothing but '!=' on a present field", () => {
    expect(compare('a', '=', [], true)).toBe(false);
    expect(compare('a', '>=', [], true)).toBe(false);
    expect(compare('a', '!=', [], true)).toBe(true);
    expect(compare(undefined, '!=', [], false)).toBe(false);
  });

  it("property: '=' and ordering pass iff some member passes", () => {
    const eqOrOrdering = fc.constantFrom<Operator>('=', 'eq', ...ORDERING);
    fc.assert(
      fc.property(scalar, fc.boolean(), eqOrOrdering, fc.array(scalar), (a, present, op, list) => {
        const some = list.some((member) => compare(a, op, member, present));
        expect(compare(a, op, list, present)).toBe(some);
      }),
    );
  });

  it("property: '!=' on a present field passes iff no member passes '='", () => {
    fc.assert(
      fc.property(scalar, fc.array(scalar), (a, list) => {
        const none = !list.some((member) => compare(a, '=', member, true));
        expect(compare(a, '!=', list, true)).toBe(none);
      }),
    );
  });
});
