import { describe, expect, it } from 'vitest';
import { DESTINATION_CASES } from './destination-cases';
import { destinationTextProblem, destinationVerdict } from './destinations';

const verdictOf = (url: string, destinations: readonly string[]) => {
  const verdict = destinationVerdict(url, destinations);
  return verdict.allowed ? 'allowed' : verdict.reason;
};

describe('Secret Key Destinations: the matcher table', () => {
  it.each(DESTINATION_CASES.map((row) => [row.rule, row] as const))('%s', (_rule, row) => {
    expect(verdictOf(row.url, row.destinations)).toBe(row.verdict);
  });

  it('the table checks every refusal and both verdicts', () => {
    const verdicts = new Set(DESTINATION_CASES.map((row) => row.verdict));
    expect([...verdicts].sort()).toEqual(['allowed', 'backslash', 'dot_segment', 'not_listed', 'placeholder_before_path', 'space', 'userinfo']);
  });
});

/** Destination texts an owner may store, and the phrase each refused one is refused with. */
const DESTINATION_TEXTS: readonly [text: string, problem: RegExp | undefined][] = [
  ['https://api.example.com', undefined],
  ['https://api.example.com/v1', undefined],
  ['https://api.example.com/v1/', undefined],
  ['http://api.example.com:8080/v1', undefined],
  ['https://*.example.com', undefined],
  ['https://*.example.com:8443/v1', undefined],
  ['http://[2001:db8::1]:8080/v1', undefined],
  ['https://api.example.com/café', undefined],
  ['ftp://api.example.com/', /http:\/\/ or https:\/\/ URL/],
  ['api.example.com', /http:\/\/ or https:\/\/ URL/],
  ['https://', /http:\/\/ or https:\/\/ URL/],
  ['https:///api.example.com', /http:\/\/ or https:\/\/ URL/],
  ['https://api.example.com:99999/', /http:\/\/ or https:\/\/ URL/],
  ['https://user@api.example.com/', /user name or password/],
  ['https://:pw@api.example.com/', /user name or password/],
  ['https://api.example.com/v1?key=1', /query or fragment/],
  ['https://api.example.com/v1?', /query or fragment/],
  ['https://api.example.com/v1#top', /query or fragment/],
  ['https://api.*.com/', /"\*" only as the whole first label/],
  ['https://a*.example.com/', /"\*" only as the whole first label/],
  ['https://*/', /"\*" only as the whole first label/],
  ['https://*.*.example.com/', /"\*" only as the whole first label/],
  ['https://*./', /"\*" only as the whole first label/],
  ['https://api.example.com/v1/*', /"\*" only as the whole first label/],
  ['https://api.example.com/v1 x', /whitespace/],
  ['https://api.example.com\\v1', /backslash/],
  ['https://api.example.com/v1/../v2', /path segment/],
  ['https://api.example.com/v1/%2e%2e', /path segment/],
  ['https://$CLIENT_SECRET.example.com/', /placeholder/],
];

describe('Secret Key Destinations: the texts an owner may store', () => {
  it.each(DESTINATION_TEXTS)('%s', (text, problem) => {
    const found = destinationTextProblem(text);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});
