/**
 * Hostile inputs shared by every table, each built once per test file: deep JSON, oversize text,
 * a query string of 10,000 keys, and Unicode lookalikes of ASCII ids.
 */
import { MAX_BODY_BYTES } from '../../src/limits';

export const DEEP_LEVELS = 100_000;

/** 100,000 nested arrays: `[[[…]]]`. */
export const deepArray = '['.repeat(DEEP_LEVELS) + ']'.repeat(DEEP_LEVELS);

/** 100,000 nested objects under the key `a`: `{"a":{"a":…1…}}`. */
export const deepObject = '{"a":'.repeat(DEEP_LEVELS) + '1' + '}'.repeat(DEEP_LEVELS);

/** Each payload under a field is built once, whichever tables ask for it. */
const once = (build: (field: string) => string) => {
  const built = new Map<string, string>();
  return (field: string): string => built.get(field) ?? built.set(field, build(field)).get(field)!;
};

/** A JSON object whose `field` holds the 100,000 nested arrays. */
export const deepUnder = once((field) => `{${JSON.stringify(field)}:${deepArray}}`);

/** One character more than the largest body any route reads (1 MiB). */
export const overMiB = 'x'.repeat(MAX_BODY_BYTES + 1);

/** A JSON object whose `field` is a string of over 1 MiB. */
export const oversizeUnder = once((field) => `{${JSON.stringify(field)}:"${overMiB}"}`);

/** `k0=0&k1=1&…`: 10,000 distinct query keys. */
export const tenThousandKeys = Array.from({ length: 10_000 }, (_, i) => `k${i}=${i}`).join('&');

/** The fullwidth form of every printable ASCII character: 'ab#1' → 'ａｂ＃１'. */
export const fullwidth = (text: string): string => text.replace(/[!-~]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0));

const CYRILLIC: Record<string, string> = {
  a: 'а',
  c: 'с',
  e: 'е',
  h: 'һ',
  i: 'і',
  j: 'ј',
  o: 'о',
  p: 'р',
  s: 'ѕ',
  x: 'х',
  y: 'у',
  A: 'А',
  E: 'Е',
  K: 'К',
  M: 'М',
  O: 'О',
  T: 'Т',
};

/** The first letter that has a Cyrillic twin replaced by it: 'plain' → 'рlain' (U+0440); without one, a Cyrillic 'а' appended. */
export const cyrillic = (text: string): string => {
  const at = [...text].findIndex((ch) => ch in CYRILLIC);
  if (at < 0) return `${text}а`;
  return text.slice(0, at) + CYRILLIC[text[at]] + text.slice(at + 1);
};

/** The text with a right-to-left override (U+202E) after its first character. */
export const rtl = (text: string): string => `${text[0]}\u202e${text.slice(1)}`;

/** The text with a NUL after its first character. */
export const nul = (text: string): string => `${text[0]}\u0000${text.slice(1)}`;

/** The text with a zero-width space (U+200B) after its first character. */
export const zeroWidth = (text: string): string => `${text[0]}\u200b${text.slice(1)}`;

/** Ways to make a string that looks like an ASCII id but is not it, each with the words a test name uses. */
export const LOOKALIKES: ReadonlyArray<readonly [transform: (id: string) => string, words: string]> = [
  [fullwidth, 'in fullwidth letters'],
  [cyrillic, 'with a Cyrillic lookalike letter'],
  [rtl, 'with a right-to-left override character'],
  [zeroWidth, 'with a zero-width space'],
  [nul, 'with a NUL character'],
  [(id) => `${id[0]}\u0001${id.slice(1)}`, 'with a control character (U+0001)'],
];
