import { expect } from 'vitest';
import { SvcError } from '../../src/index.js';

/** The SvcError a promise rejects with (the test fails when it resolves or rejects with anything else). */
export async function rejection(promise: Promise<unknown>): Promise<SvcError> {
  const err = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SvcError);
  return err as SvcError;
}
