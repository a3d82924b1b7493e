import { describe, expect, it } from 'vitest';
import { bodyAsJsonText } from './body-json';

describe('an answer body as JSON text', () => {
  it('a body that parses as JSON is the response as JSON; any other is its text', () => {
    expect(JSON.parse(bodyAsJsonText('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(JSON.parse(bodyAsJsonText(' 42 '))).toBe(42);
    expect(JSON.parse(bodyAsJsonText('null'))).toBeNull();
    expect(JSON.parse(bodyAsJsonText('plain text'))).toBe('plain text');
    expect(JSON.parse(bodyAsJsonText(''))).toBe('');
    expect(JSON.parse(bodyAsJsonText('{"cut":'))).toBe('{"cut":');
  });
});
