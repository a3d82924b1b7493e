import { describe, expect, it } from 'vitest';
import { answerJson } from './answer';

describe('answers', () => {
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
