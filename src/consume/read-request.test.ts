import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth } from '../wire/json-depth';
import { parseBody, parseQuery } from './read-request';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('reading a consumption request', () => {
  it('query values are JSON-parsed when they parse, else stay strings', () => {
    expect(parseQuery('?qty=2&ok=true&name=bob&n=null&q=%22two%22&obj=%7B%22a%22%3A1%7D')).toEqual({
      qty: 2,
      ok: true,
      name: 'bob',
      n: null,
      q: 'two',
      obj: { a: 1 },
    });
  });

  it('a query value reads exactly as JSON.parse would, or as its text when that throws (any string)', () => {
    const jsonish = fc.oneof(fc.string(), fc.json(), fc.constantFrom(' 1', '\t[1]', 'tru', 'nul', '-', '"a', 'NaN', 'Infinity', '1e5', ' "x" '));
    fc.assert(
      fc.property(jsonish, (raw) => {
        let expected: unknown;
        try {
          expected = JSON.parse(raw);
        } catch {
          expected = raw;
        }
        expect(parseQuery(`v=${encodeURIComponent(raw)}`).v).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('no query string reads as {}', () => {
    expect(parseQuery('')).toEqual({});
  });

  it('a repeated query key reads as the list of its values', () => {
    expect(parseQuery('a=1&a=x&a=3')).toEqual({ a: [1, 'x', 3] });
  });

  it('a __proto__ query key is a plain key and pollutes nothing', () => {
    const q = parseQuery('__proto__=%7B%22polluted%22%3A1%7D');
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(q)).toEqual(['__proto__']);
  });

  it('thousands of query keys are refused with INVALID_REQUEST', () => {
    const search = Array.from({ length: 3000 }, (_, i) => `k${i}=1`).join('&');
    expect(() => parseQuery(search)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', stage: 'ticket' }));
  });

  it('a POST body is parsed as JSON, otherwise kept as text', () => {
    expect(parseBody(bytes('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(parseBody(bytes('a=1&b=2'))).toBe('a=1&b=2');
    expect(parseBody(bytes('{not json'))).toBe('{not json');
  });

  it('an empty POST body reads as {}', () => {
    expect(parseBody(new Uint8Array(0))).toEqual({});
  });

  it('invalid UTF-8 is read as text with replacement characters', () => {
    expect(parseBody(new Uint8Array([0x68, 0xff, 0x69]))).toBe('h\uFFFDi');
  });

  it('deeply nested JSON is refused with INVALID_REQUEST', () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    expect(() => parseBody(bytes(deep))).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });

  it('brackets inside strings do not count towards JSON depth', () => {
    expect(jsonDepth('{"a":"[[[[\\"[["}')).toBe(1);
  });
});
