import { describe, expect, it } from 'vitest';
import { fromBase62, fromBase64, fromHex, randomBase62, toBase62, toBase64, toBase64Url, toHex } from './encoding';

describe('base62', () => {
  it('base62 round-trips', () => {
    for (const n of [0, 1, 61, 62, 3843, 1_790_000_000_123, Number.MAX_SAFE_INTEGER]) expect(fromBase62(toBase62(n))).toBe(n);
  });

  it('random base62 text has the length asked for and only base62 digits', () => {
    for (const length of [0, 4, 8, 64]) expect(randomBase62(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });
});

describe('hex and base64', () => {
  const bytes = Uint8Array.from([0, 1, 127, 128, 254, 255]);

  it('hex round-trips in either case, and an odd length or a non-hex character is undecodable', () => {
    expect(toHex(bytes)).toBe('00017f80feff');
    expect(fromHex('00017F80FEFF')).toEqual(bytes);
    expect(fromHex('abc')).toBeUndefined();
    expect(fromHex('zz')).toBeUndefined();
  });

  it('base64 reads the standard and URL-safe alphabets, padding optional but correct when present', () => {
    expect(toBase64(bytes)).toBe(btoa(String.fromCharCode(...bytes)));
    expect(fromBase64(toBase64(bytes))).toEqual(bytes);
    expect(fromBase64(toBase64Url(bytes))).toEqual(bytes);
    expect(toBase64Url(bytes)).not.toMatch(/[+/=]/);
    expect(fromBase64('ab=')).toBeUndefined();
    expect(fromBase64('a')).toBeUndefined();
    expect(fromBase64('ab$c')).toBeUndefined();
  });

  it('a large body is encoded without overflowing the call stack', () => {
    const large = new Uint8Array(300_000).fill(65);
    expect(fromBase64(toBase64(large))).toEqual(large);
  });
});
