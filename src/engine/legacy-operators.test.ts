import { describe, expect, it } from 'vitest';
import { compareLegacy, looseEqual } from './legacy-operators';

describe("the previous rules' '=' (loose)", () => {
  it('a number equals its text and a boolean its word', () => {
    expect(looseEqual('10', 10)).toBe(true);
    expect(looseEqual(10, '10')).toBe(true);
    expect(looseEqual('1e1', 10)).toBe(true);
    expect(looseEqual('true', true)).toBe(true);
    expect(looseEqual(false, 'false')).toBe(true);
  });

  it('blank text is not zero, 1 is not true, null is only null', () => {
    expect(looseEqual('', 0)).toBe(false);
    expect(looseEqual('  ', 0)).toBe(false);
    expect(looseEqual(1, true)).toBe(false);
    expect(looseEqual(null, 'null')).toBe(false);
    expect(looseEqual(null, null)).toBe(true);
  });

  it('a list is one value, compared whole', () => {
    expect(compareLegacy('pro', '=', ['pro', 'team'])).toBe(false);
    expect(compareLegacy(['pro', 'team'], '=', ['pro', 'team'])).toBe(true);
    expect(compareLegacy('pro', '!=', ['pro', 'team'])).toBe(true);
    expect(compareLegacy(['pro'], '>=', ['pro'])).toBe(false);
  });
});

describe("the previous rules' ordering", () => {
  it("'<=' on two strings is lexicographic, '>=' is starts-with", () => {
    expect(compareLegacy('abc', '<=', 'son')).toBe(true);
    expect(compareLegacy('zorson', 'lte', 'son')).toBe(false);
    expect(compareLegacy('jackson', '>=', 'jack')).toBe(true);
    expect(compareLegacy('jackson', 'gte', 'son')).toBe(false);
  });

  it('numbers compare as numbers; mixed types never order', () => {
    expect(compareLegacy(9, '<', 10)).toBe(true);
    expect(compareLegacy('9', '<', 10)).toBe(false);
    expect(compareLegacy(true, '>', false)).toBe(false);
  });
});
