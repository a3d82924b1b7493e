import { describe, expect, it } from 'vitest';
import { textPieces, utf8Bytes, utf8Over } from './utf8';

describe('utf8Over', () => {
  it('counts UTF-8 bytes: ASCII 1, é 2, € 3, an emoji (a surrogate pair) 4', () => {
    expect([utf8Over('a'.repeat(10), 10), utf8Over('a'.repeat(11), 10)]).toEqual([false, true]);
    expect([utf8Over('é'.repeat(5), 10), utf8Over('é'.repeat(6), 10)]).toEqual([false, true]);
    expect([utf8Over('€'.repeat(3), 9), utf8Over('€'.repeat(4), 9)]).toEqual([false, true]);
    expect([utf8Over('😀'.repeat(2), 8), utf8Over('😀'.repeat(2), 7)]).toEqual([false, true]);
  });
});

describe('textPieces', () => {
  it('cuts text into pieces under the byte size that join back exactly, never inside a surrogate pair', () => {
    const text = `${'a'.repeat(10)}${'😀'.repeat(20)}é€`;
    for (const max of [6, 7, 9, 30]) {
      const pieces = textPieces(text, max);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(utf8Bytes(piece)).toBeLessThanOrEqual(Math.max(max, 4));
        expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(piece)).toBe(false);
      }
    }
  });

  it('fills each piece: ASCII text of 2,031,616 characters is 3 pieces of 1,000,000 bytes or less', () => {
    const pieces = textPieces('A'.repeat(2_031_616), 1_000_000);
    expect(pieces.map((piece) => piece.length)).toEqual([1_000_000, 1_000_000, 31_616]);
  });

  it('gives no piece for empty text and one piece for text that fits', () => {
    expect(textPieces('', 10)).toEqual([]);
    expect(textPieces('abc', 10)).toEqual(['abc']);
  });
});
