import { keyReference, MAX_IDEMPOTENCY_KEY, type StoredIdempotency, windowMs } from '../../schemas/idempotency';
import type { ErrorCode } from '../wire/errors';
import { readPath } from '../engine/paths';
import type { RequestSnapshot } from '../engine/snapshot';

export type ResolvedKey = { ok: true; key: string; windowMs: number } | { ok: false; code: ErrorCode; message: string; detail: Record<string, unknown> };

/**
 * The idempotency key a request carries (extension, docs/api.md "Idempotent consumption"): the text its
 * one reference reads. Missing → PATH_NOT_FOUND as any reference; not text, empty or over 256
 * characters → INVALID_PARAMETER naming the reference.
 */
export function resolveIdempotencyKey(idempotency: StoredIdempotency, request: RequestSnapshot): ResolvedKey {
  const reference = idempotency.key;
  const ref = keyReference(reference);
  const read =
    ref.root === 'headers'
      ? Object.hasOwn(request.headers, ref.path[0].toLowerCase())
        ? { found: true, value: request.headers[ref.path[0].toLowerCase()] }
        : { found: false }
      : readPath(ref.root === 'body' ? request.body : request.params, ref.path);
  if (!read.found) {
    return {
      ok: false,
      code: 'PATH_NOT_FOUND',
      message: `${reference} does not resolve: the request carries no idempotency key there.`,
      detail: { reference },
    };
  }
  const value = read.value;
  if (typeof value !== 'string' || value === '' || value.length > MAX_IDEMPOTENCY_KEY) {
    const why = typeof value !== 'string' ? 'is not text' : value === '' ? 'is empty' : `is over ${MAX_IDEMPOTENCY_KEY} characters`;
    return {
      ok: false,
      code: 'INVALID_PARAMETER',
      message: `The idempotency key ${reference} ${why}: it must be text of 1 to ${MAX_IDEMPOTENCY_KEY} characters.`,
      detail: { reference, field: 'idempotency.key' },
    };
  }
  return { ok: true, key: value, windowMs: windowMs(idempotency.window) ?? 0 };
}
