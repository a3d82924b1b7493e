import { describe, expect, it } from 'vitest';
import { utf8Over } from './utf8';

describe('utf8Over', () => {
  it('counts UTF-8 bytes: ASCII 1, é 2, € 3, an emoji (a surrogate pair) 4', () => {
    expect([utf8Over('a'.repeat(10), 10), utf8Over('a'.repeat(11), 10)]).toEqual([false, true]);
    expect([utf8Over('é'.repeat(5), 10), utf8Over('é'.repeat(6), 10)]).toEqual([false, true]);
    expect([utf8Over('€'.repeat(3), 9), utf8Over('€'.repeat(4), 9)]).toEqual([false, true]);
    expect([utf8Over('😀'.repeat(2), 8), utf8Over('😀'.repeat(2), 7)]).toEqual([false, true]);
  });
});
