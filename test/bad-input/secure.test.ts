/** secureRequest's bad-input table (tables/secure.ts): every case refused, nothing stored, nothing sent. */
import { describe, expect, it } from 'vitest';
import { received } from '../forward/support';
import { runCases } from './runner';
import { SECURE_CASES_PATH, secureCases } from './tables/secure';

runCases('secureRequest', secureCases());

describe('secureRequest: after every case', () => {
  it('nothing reached the destination the cases aim at', async () => {
    expect(await received(SECURE_CASES_PATH)).toBe(0);
  });
});
