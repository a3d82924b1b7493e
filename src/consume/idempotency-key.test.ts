import { describe, expect, it } from 'vitest';
import { resolveIdempotencyKey } from './idempotency-key';
import type { RequestSnapshot } from '../engine/snapshot';

const request = (over: Partial<RequestSnapshot>): RequestSnapshot => ({
  method: 'POST',
  body: {},
  params: {},
  headers: {},
  ip: '203.0.113.1',
  user_agent: 'ua',
  ...over,
});

describe('the idempotency key a request carries', () => {
  it('a header key is read case-insensitively, with the window in ms', () => {
    expect(resolveIdempotencyKey({ key: '${headers[Webhook-Id]}', window: '90s' }, request({ headers: { 'webhook-id': 'msg_1' } }))).toEqual({
      ok: true,
      key: 'msg_1',
      windowMs: 90_000,
    });
  });

  it('a body key reads a nested field, a params key the query', () => {
    expect(resolveIdempotencyKey({ key: '${body[data][id]}', window: '7d' }, request({ body: { data: { id: 'evt_1' } } }))).toMatchObject({
      ok: true,
      key: 'evt_1',
    });
    expect(resolveIdempotencyKey({ key: '${params[id]}', window: '1m' }, request({ params: { id: 'q' } }))).toMatchObject({ ok: true, key: 'q' });
  });

  it('a key the request does not carry is PATH_NOT_FOUND naming the reference', () => {
    expect(resolveIdempotencyKey({ key: '${headers[svix-id]}', window: '24h' }, request({}))).toMatchObject({
      ok: false,
      code: 'PATH_NOT_FOUND',
      detail: { reference: '${headers[svix-id]}' },
    });
  });

  it('a key that is not text, empty or over 256 characters is refused', () => {
    const key = { key: '${body[id]}', window: '24h' };
    for (const id of [42, { a: 1 }, '', 'x'.repeat(257)]) {
      expect(resolveIdempotencyKey(key, request({ body: { id } }))).toMatchObject({
        ok: false,
        code: 'INVALID_PARAMETER',
        detail: { reference: '${body[id]}' },
      });
    }
    expect(resolveIdempotencyKey(key, request({ body: { id: 'x'.repeat(256) } }))).toMatchObject({ ok: true });
  });
});
