import { describe, expect, it } from 'vitest';
import { answerJson, responseJson } from './answer';

describe('answers', () => {
  it('a body that parses as JSON is the response as JSON; any other is its text', () => {
    expect(JSON.parse(responseJson('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(JSON.parse(responseJson(' 42 '))).toBe(42);
    expect(JSON.parse(responseJson('null'))).toBeNull();
    expect(JSON.parse(responseJson('plain text'))).toBe('plain text');
    expect(JSON.parse(responseJson(''))).toBe('');
    expect(JSON.parse(responseJson('{"cut":'))).toBe('{"cut":');
  });

  it('an answer is { response, statusCode, url }; a failed request { response: null, statusCode: 0, url, error }', () => {
    expect(JSON.parse(answerJson('https://api.example.com/x', { ok: true, statusCode: 404, body: '{"e":1}' }))).toEqual({
      response: { e: 1 },
      statusCode: 404,
      url: 'https://api.example.com/x',
    });
    const failure = { code: 'TIMEOUT' as const, message: 'The request did not complete within its time limit.' };
    expect(JSON.parse(answerJson('https://api.example.com/"q"', { ok: false, failure, httpStatus: 504 }))).toEqual({
      response: null,
      statusCode: 0,
      url: 'https://api.example.com/"q"',
      error: failure,
    });
  });
});
