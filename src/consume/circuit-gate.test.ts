import { describe, expect, it } from 'vitest';
import { sentOrigin, verdictOfReq } from './circuit-gate';

const failed = (detail: Record<string, unknown>, code = 'REQUEST_FAILED' as const) => ({ ok: false as const, failure: { code, message: 'x', detail } });

describe("what a req's result tells its destination's circuit", () => {
  it('an answer under 500 succeeds, a 5xx fails, a 429 tells nothing', () => {
    expect(verdictOfReq({ ok: true, answer: {} })).toBe('success');
    expect(verdictOfReq(failed({ status: 404 }))).toBe('success');
    expect(verdictOfReq(failed({ status: 503 }))).toBe('failure');
    expect(verdictOfReq(failed({ status: 429 }))).toBe('neutral');
  });

  it('no answer or past its time limit fails; refused before it was sent tells nothing', () => {
    expect(verdictOfReq(failed({ reason: 'unreachable' }))).toBe('failure');
    expect(verdictOfReq(failed({ reason: 'timeout' }))).toBe('failure');
    for (const reason of ['invalid_url', 'invalid_header', 'secret_missing', 'too_large']) expect(verdictOfReq(failed({ reason }))).toBe('neutral');
    expect(verdictOfReq(failed({ reason: 'private_destination' }, 'ACTION_FORBIDDEN' as never))).toBe('neutral');
  });

  it("the origin is the sent url's, when it parses", () => {
    expect(sentOrigin({ sent: { url: 'https://api.example:8443/v1/x?y=1' } })).toBe('https://api.example:8443');
    expect(sentOrigin({ sent: { url: 'not a url' } })).toBeUndefined();
    expect(sentOrigin({ sent: { url: 42 } })).toBeUndefined();
    expect(sentOrigin(undefined)).toBeUndefined();
  });
});
