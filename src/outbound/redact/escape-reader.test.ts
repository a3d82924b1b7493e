import { describe, expect, it } from 'vitest';
import { EscapeReader, type EscapeReaderOptions } from './escape-reader';

/** The characters that `text` can be read as at index 0 with `depth` layers, as [char, length] pairs. */
function readingsOf(text: string, depth: number, options: EscapeReaderOptions = {}): [string, number][] {
  return new EscapeReader(text, options)
    .read(0, depth)
    .map((r): [string, number] => [String.fromCodePoint(r.cp), r.end])
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
}

describe('escape reader', () => {
  it('reads a character as written at depth 0, even an escape', () => {
    expect(readingsOf('%41', 0)).toEqual([['%', 1]]);
    expect(readingsOf('😀x', 0)).toEqual([['😀', 2]]);
  });

  it('reads percent-encoding with hex digits in either case, and UTF-8 sequences as one character', () => {
    expect(readingsOf('%4a', 1)).toContainEqual(['J', 3]);
    expect(readingsOf('%4A', 1)).toContainEqual(['J', 3]);
    expect(readingsOf('%E2%82%AC', 1)).toContainEqual(['€', 9]);
    expect(readingsOf('%F0%9F%98%80', 1)).toContainEqual(['😀', 12]);
  });

  it('refuses invalid UTF-8: a stray continuation byte, an overlong form, a surrogate', () => {
    expect(readingsOf('%80', 1)).toEqual([['%', 1]]);
    expect(readingsOf('%C0%80', 1)).toEqual([['%', 1]]);
    expect(readingsOf('%ED%A0%80', 1)).toEqual([['%', 1]]);
  });

  it('reads backslash escapes: \\x, \\u, surrogate pairs, \\u{}, \\U and the short escapes', () => {
    expect(readingsOf('\\x41', 1)).toContainEqual(['A', 4]);
    expect(readingsOf('\\u00e9', 1)).toContainEqual(['é', 6]);
    expect(readingsOf('\\ud83d\\ude00', 1)).toContainEqual(['😀', 12]);
    expect(readingsOf('\\u{1F600}', 1)).toContainEqual(['😀', 9]);
    expect(readingsOf('\\U0001F600', 1)).toContainEqual(['😀', 10]);
    expect(readingsOf('\\"', 1)).toContainEqual(['"', 2]);
    expect(readingsOf('\\n', 1)).toContainEqual(['\n', 2]);
    expect(readingsOf('\\/', 1)).toContainEqual(['/', 2]);
  });

  it('reads HTML references: decimal, hex with x or X, and named ones, each needing its ;', () => {
    expect(readingsOf('&#65;', 1)).toContainEqual(['A', 5]);
    expect(readingsOf('&#x41;', 1)).toContainEqual(['A', 6]);
    expect(readingsOf('&#X41;', 1)).toContainEqual(['A', 6]);
    expect(readingsOf('&amp;', 1)).toContainEqual(['&', 5]);
    expect(readingsOf('&percnt;', 1)).toContainEqual(['%', 8]);
    expect(readingsOf('&#65', 1)).toEqual([['&', 1]]);
    expect(readingsOf('&amp', 1)).toEqual([['&', 1]]);
    expect(readingsOf('&nosuchname;', 1)).toEqual([['&', 1]]);
  });

  it('reads the characters of an escape with one layer less, so layers mix per character', () => {
    // '%' written as %25, then 41: two layers for 'A'.
    expect(readingsOf('%2541', 1)).not.toContainEqual(['A', 5]);
    expect(readingsOf('%2541', 2)).toContainEqual(['A', 5]);
    // &#x41; with its '&' written as &amp; and its '4' as %34: two layers for 'A'.
    expect(readingsOf('&amp;#x%341;', 2)).toContainEqual(['A', 12]);
    // Three layers: \u0025 is '%', &#50; is '2', '5' as written -> "%25" -> '%', then "41" -> 'A'.
    expect(readingsOf('\\u0025&#50;541', 3)).toContainEqual(['A', 14]);
    expect(readingsOf('\\u0025&#50;541', 2)).not.toContainEqual(['A', 14]);
  });

  it("reads '+' as a space with plusIsSpace (form encoding), one layer like %20, and as itself", () => {
    const form = { plusIsSpace: true };
    expect(readingsOf('+', 0, form)).toEqual([['+', 1]]);
    expect(readingsOf('+', 1, form)).toEqual([
      [' ', 1],
      ['+', 1],
    ]);
    // '+' written as %2B (form encoding, then percent-encoding): a space needs two layers.
    expect(readingsOf('%2B', 1, form)).not.toContainEqual([' ', 3]);
    expect(readingsOf('%2B', 2, form)).toContainEqual([' ', 3]);
    expect(readingsOf('&#43;', 2, form)).toContainEqual([' ', 5]);
    expect(readingsOf('&amp;#43;', 3, form)).toContainEqual([' ', 9]);
    expect(readingsOf('&amp;#43;', 2, form)).not.toContainEqual([' ', 9]);
  });

  it("reads '+' only as itself without plusIsSpace", () => {
    expect(readingsOf('+', 3)).toEqual([['+', 1]]);
    expect(readingsOf('%2B', 3)).not.toContainEqual([' ', 3]);
  });

  it('keeps the character as written among the readings of an escape', () => {
    expect(readingsOf('%41', 3)).toContainEqual(['%', 1]);
  });
});
