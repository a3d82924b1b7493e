import { describe, expect, it } from 'vitest';
import { encodeBody, isJsonContentType } from './body';

describe('request body encoding', () => {
  it('recognizes application/json and +json media types, with parameters, in any case', () => {
    for (const type of ['application/json', 'Application/JSON; charset=utf-8', 'application/vnd.api+json', 'application/problem+json']) {
      expect(isJsonContentType(type), type).toBe(true);
    }
    for (const type of [undefined, '', 'text/json', 'application/x-www-form-urlencoded', 'application/jsonp', 'text/plain; x=application/json']) {
      expect(isJsonContentType(type), String(type)).toBe(false);
    }
  });

  it('sends JSON when the content-type says so, keeping that content-type', () => {
    expect(encodeBody({ a: 1, b: [true, null] }, 'application/json; charset=utf-8')).toEqual({
      body: '{"a":1,"b":[true,null]}',
      contentType: 'application/json; charset=utf-8',
    });
    expect(encodeBody('text', 'application/vnd.api+json').body).toBe('"text"');
  });

  it('form-encodes an object otherwise, nested values as compact JSON', () => {
    expect(encodeBody({ name: 'a b&c', n: 2, nested: { x: [1, 'y'] }, nil: null }, undefined)).toEqual({
      body: 'name=a+b%26c&n=2&nested=%7B%22x%22%3A%5B1%2C%22y%22%5D%7D&nil=null',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(encodeBody({ a: 1 }, 'text/plain').contentType).toBe('text/plain');
  });

  it('sends a string as it is and a number, boolean or null as its JSON text', () => {
    expect(encodeBody('raw text', undefined)).toEqual({ body: 'raw text', contentType: 'text/plain;charset=UTF-8' });
    expect(encodeBody(12, undefined).body).toBe('12');
    expect(encodeBody(null, undefined).body).toBe('null');
  });
});
