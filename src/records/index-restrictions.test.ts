import { describe, expect, it } from 'vitest';
import { indexMeetsRestrictions, meetsCondition } from './index-restrictions';

describe('index restriction conditions', () => {
  it("on two strings '>=' is starts-with, not a lexicographic comparison", () => {
    expect(meetsCondition('apple pie', '>=', 'apple')).toBe(true);
    expect(meetsCondition('banana', '>=', 'apple')).toBe(false);
    expect(meetsCondition('apple', 'gte', 'app')).toBe(true);
  });

  it("on two strings '<=' is a plain lesser-or-equal comparison (not ends-with)", () => {
    expect(meetsCondition('apple', '<=', 'banana')).toBe(true);
    expect(meetsCondition('banana', '<=', 'banana')).toBe(true);
    expect(meetsCondition('cherry', '<=', 'banana')).toBe(false);
    expect(meetsCondition('pie', 'lte', 'apple pie')).toBe(false);
  });

  it("'>' and '<' compare strings lexicographically and numbers numerically", () => {
    expect(meetsCondition('b', '>', 'a')).toBe(true);
    expect(meetsCondition('a', 'lt', 'b')).toBe(true);
    expect(meetsCondition(10, '>', 9)).toBe(true);
    expect(meetsCondition(10, '>=', 10)).toBe(true);
    expect(meetsCondition(9, 'gt', 10)).toBe(false);
    expect(meetsCondition(3, '<=', 3)).toBe(true);
  });

  it("'=' and '!=' are strict: 1 is not '1'", () => {
    expect(meetsCondition(1, '=', 1)).toBe(true);
    expect(meetsCondition(1, 'eq', '1')).toBe(false);
    expect(meetsCondition(1, '!=', '1')).toBe(true);
    expect(meetsCondition(true, 'ne', true)).toBe(false);
  });

  it('ordering never passes on mixed types or booleans', () => {
    expect(meetsCondition(5, '>', '4')).toBe(false);
    expect(meetsCondition('5', '<', 6)).toBe(false);
    expect(meetsCondition(true, '>=', false)).toBe(false);
  });
});

describe('referencing_index_restrictions', () => {
  it('no restrictions (absent, null or empty) let any record reference, with or without an index', () => {
    expect(indexMeetsRestrictions(undefined, undefined)).toBe(true);
    expect(indexMeetsRestrictions(undefined, null)).toBe(true);
    expect(indexMeetsRestrictions({ name: 'x', value: 1 }, [])).toBe(true);
  });

  it('a record without an index cannot reference a record with restrictions', () => {
    expect(indexMeetsRestrictions(undefined, [{ name: 'score' }])).toBe(false);
  });

  it('the index name must be one of the restricted names; a name-only restriction takes any value', () => {
    expect(indexMeetsRestrictions({ name: 'score', value: 'anything' }, [{ name: 'score' }])).toBe(true);
    expect(indexMeetsRestrictions({ name: 'other', value: 1 }, [{ name: 'score' }])).toBe(false);
  });

  it('a value without a condition must be equal', () => {
    expect(indexMeetsRestrictions({ name: 'kind', value: 'vote' }, [{ name: 'kind', value: 'vote' }])).toBe(true);
    expect(indexMeetsRestrictions({ name: 'kind', value: 'spam' }, [{ name: 'kind', value: 'vote' }])).toBe(false);
  });

  it('every restriction written for the index name must pass; different names are alternatives', () => {
    const restrictions = [
      { name: 'score', value: 1, condition: '>=' as const },
      { name: 'score', value: 5, condition: '<=' as const },
      { name: 'label', value: 'ok' },
    ];
    expect(indexMeetsRestrictions({ name: 'score', value: 3 }, restrictions)).toBe(true);
    expect(indexMeetsRestrictions({ name: 'score', value: 6 }, restrictions)).toBe(false);
    expect(indexMeetsRestrictions({ name: 'label', value: 'ok' }, restrictions)).toBe(true);
  });

  it('range: value <= index <= range, inclusive, plain comparisons also on strings', () => {
    const numbers = [{ name: 'n', value: 10, range: 20 }];
    expect(indexMeetsRestrictions({ name: 'n', value: 10 }, numbers)).toBe(true);
    expect(indexMeetsRestrictions({ name: 'n', value: 20 }, numbers)).toBe(true);
    expect(indexMeetsRestrictions({ name: 'n', value: 21 }, numbers)).toBe(false);
    expect(indexMeetsRestrictions({ name: 'n', value: '15' }, numbers)).toBe(false);
    const letters = [{ name: 's', value: 'b', range: 'd' }];
    expect(indexMeetsRestrictions({ name: 's', value: 'c' }, letters)).toBe(true);
    expect(indexMeetsRestrictions({ name: 's', value: 'dz' }, letters)).toBe(false);
    expect(indexMeetsRestrictions({ name: 's', value: 'a' }, [{ name: 's', range: 'b' }])).toBe(true);
  });
});
