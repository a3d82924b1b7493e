import { describe, expect, it } from 'vitest';
import { checked } from './field-issue';
import { parseSecureRequest, secureRequestSchema } from './secure';
import { MAX_SECURE_ITEMS, secureAnswerCap } from './secure-rules';

const issueOf = async (input: unknown) => {
  const result = await checked(() => parseSecureRequest(input));
  return result.ok ? undefined : result.issue;
};

describe('the body of secureRequest', () => {
  it('one request is a single call; an array of 1 to 50 an array call', () => {
    expect(parseSecureRequest({ url: 'https://api.example.com/a', data: { x: 1 }, sync: true })).toEqual({
      single: true,
      items: [{ url: 'https://api.example.com/a', data: { x: 1 }, sync: true }],
    });
    const fifty = Array.from({ length: MAX_SECURE_ITEMS }, (_, i) => ({ url: `https://api.example.com/${i}` }));
    expect(parseSecureRequest(fifty)).toEqual({ single: false, items: fifty });
  });

  it.each([
    ['100 requests', Array.from({ length: 100 }, () => ({ url: 'https://api.example.com/' })), 'body', /at most 50 requests in one call; this one has 100/],
    ['an empty array', [], 'body', /an empty array sends nothing/],
    ['a string', 'https://api.example.com/', 'body', /must be a request/],
    ['null', null, 'body', /must be a request/],
    ['a missing url', { data: 1 }, 'url', /^url: is required/],
    ['a url that is a number', { url: 42 }, 'url', /^url: /],
    ['a javascript: url', { url: 'javascript:alert(1)' }, 'url', /absolute http/],
    ['a url with CRLF', { url: 'https://api.example.com/a\r\nx-injected: 1' }, 'url', /control character/],
    ['sync that is not a boolean', { url: 'https://api.example.com/', sync: 'yes' }, 'sync', /^sync: /],
    ['an unknown key', { url: 'https://api.example.com/', method: 'GET' }, 'method', /accepted keys: url, data, sync/],
    ['an item of an array that is not an object', [{ url: 'https://api.example.com/' }, 7], '[1]', /^\[1\]: /],
    [
      'a bad url in the third item',
      [{ url: 'https://a.example.com/' }, { url: 'https://b.example.com/' }, { url: 'ftp://c.example.com/' }],
      '[2].url',
      /^\[2\]\.url: /,
    ],
  ])('%s is INVALID_PARAMETER naming %s', async (_what, input, field, message) => {
    const issue = await issueOf(input);
    expect(issue).toMatchObject({ code: 'INVALID_PARAMETER', field });
    expect(issue!.message).toMatch(message);
  });

  it('the documented schema accepts and refuses what the route does', async () => {
    const inputs = [
      { url: 'https://api.example.com/' },
      [{ url: 'https://api.example.com/', sync: true, data: null }],
      [],
      Array.from({ length: 51 }, () => ({ url: 'https://api.example.com/' })),
      { url: 'javascript:x' },
      { url: 'https://api.example.com/', extra: 1 },
      'text',
    ];
    for (const input of inputs)
      expect(secureRequestSchema.safeParse(input).success, JSON.stringify(input).slice(0, 60)).toBe((await issueOf(input)) === undefined);
  });

  it('each answer of a call may read 1 MiB, and all of them together 8 MiB', () => {
    expect(secureAnswerCap(1)).toBe(1_048_576);
    expect(secureAnswerCap(8)).toBe(1_048_576);
    expect(secureAnswerCap(50)).toBe(Math.floor((8 * 1_048_576) / 50));
  });
});
