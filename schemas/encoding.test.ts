import { describe, expect, it } from 'vitest';
import { fromBase62, randomBase62, toBase62 } from './encoding';

describe('base62', () => {
  it('base62 round-trips', () => {
    for (const n of [0, 1, 61, 62, 3843, 1_790_000_000_123, Number.MAX_SAFE_INTEGER]) expect(fromBase62(toBase62(n))).toBe(n);
  });

  it('random base62 text has the length asked for and only base62 digits', () => {
    for (const length of [0, 4, 8, 64]) expect(randomBase62(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });
});
