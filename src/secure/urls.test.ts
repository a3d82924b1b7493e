/**
 * secureRequest's whole-call url checks with Destinations: the Secret Key Destinations table
 * (src/outbound/destination-cases.ts) row by row, so the secureRequest key's Destinations match exactly
 * as a Secret Key's do. Nothing is sent here (the hosts are examples).
 */
import { describe, expect, it } from 'vitest';
import type { SecureRequestCall } from '../../schemas/secure';
import { DESTINATION_CASES } from '../outbound/destination-cases';
import { checkDestination } from '../outbound/fetch';
import { SvcHttpError } from '../wire/errors';
import { SECURE_DESTINATION_REFUSAL, checkUrls } from './urls';

/** The table is about matching: the address guard is off (ALLOW_PRIVATE_DESTINATIONS), as in local development. */
const env = { ALLOW_PRIVATE_DESTINATIONS: 'true' };
const guarded = { ALLOW_PRIVATE_DESTINATIONS: 'false' };

const single = (url: string): SecureRequestCall => ({ items: [{ url }], single: true });
const array = (...urls: string[]): SecureRequestCall => ({ items: urls.map((url) => ({ url })), single: false });

/** What checkUrls did: passed, or the refusal as the route answers it. */
function outcome(call: SecureRequestCall, destinations: readonly string[], on: { ALLOW_PRIVATE_DESTINATIONS: string } = env) {
  try {
    checkUrls(call, on, destinations);
    return 'passed';
  } catch (error) {
    if (!(error instanceof SvcHttpError)) throw error;
    return { code: error.code, message: error.message, detail: error.detail };
  }
}

/** Whether the URL rules alone (no Destinations) refuse the url: such a url is INVALID_PARAMETER whatever the list says. */
function refusedByUrlRules(url: string): boolean {
  try {
    checkDestination(url, env);
    return false;
  } catch {
    return true;
  }
}

describe('the Destinations table through secureRequest', () => {
  it('every row: allowed urls pass, refused ones are INVALID_REQUEST with the refusal, urls the URL rules refuse stay INVALID_PARAMETER', () => {
    const refused = DESTINATION_CASES.filter((row) => row.verdict !== 'allowed' && !refusedByUrlRules(row.url));
    const allowed = DESTINATION_CASES.filter((row) => row.verdict === 'allowed' && !refusedByUrlRules(row.url));
    expect(refused.length).toBeGreaterThan(40);
    expect(allowed.length).toBeGreaterThan(30);
    for (const row of DESTINATION_CASES) {
      const expected = refusedByUrlRules(row.url)
        ? { code: 'INVALID_PARAMETER' }
        : row.verdict === 'allowed'
          ? 'passed'
          : { code: 'INVALID_REQUEST', message: `url: ${SECURE_DESTINATION_REFUSAL}`, detail: { field: 'url', refusal: row.verdict } };
      const actual = outcome(single(row.url), row.destinations);
      const shown = typeof actual === 'string' || typeof expected === 'string' || 'message' in expected ? actual : { code: actual.code };
      expect(shown, `${row.rule}: ${row.url}`).toEqual(expected);
    }
  });
});

describe('a call of several requests', () => {
  const listed = ['https://api.example.com/v1'];

  it('the first url outside the list refuses the whole call, naming its index', () => {
    const call = array('https://api.example.com/v1/a', 'https://api.example.com/v1/b', 'https://api.example.com/v2/c');
    expect(outcome(call, listed)).toEqual({
      code: 'INVALID_REQUEST',
      message: `[2].url: ${SECURE_DESTINATION_REFUSAL}`,
      detail: { field: '[2].url', refusal: 'not_listed' },
    });
  });

  it('every url inside the list passes', () => {
    expect(outcome(array('https://api.example.com/v1', 'https://API.example.com:443/v1/x?q=1'), listed)).toBe('passed');
  });

  it('without a list any public url passes, and the URL rules and the address guard still refuse', () => {
    expect(outcome(array('https://anything.example.net/a/../b'), [])).toBe('passed');
    expect(outcome(array('https://api.example.com/v1', 'http://127.0.0.1/v1'), [], guarded)).toMatchObject({
      code: 'INVALID_REQUEST',
      detail: { field: '[1].url' },
    });
  });

  it('a private address inside the list is still refused by the address guard', () => {
    expect(outcome(single('http://127.0.0.1:8080/v1/x'), ['http://127.0.0.1:8080/v1'], guarded)).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/^url: The destination is not a public address/),
    });
  });
});
