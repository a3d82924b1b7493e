import { describe, expect, it } from 'vitest';
import { OutboundError } from './errors';
import { buildHeaders, headerValueText } from './headers';

function failure(values: Record<string, string>) {
  try {
    buildHeaders(values);
  } catch (error) {
    if (error instanceof OutboundError) return { reason: error.reason, detail: error.detail };
    throw error;
  }
  return undefined;
}

describe('outbound header rules', () => {
  it('sends ordinary headers, Latin-1 values included', () => {
    const headers = buildHeaders({ Authorization: 'Bearer abc', 'X-Name': 'Zoë' });
    expect(headers.get('authorization')).toBe('Bearer abc');
    expect(headers.get('x-name')).toBe('Zoë');
  });

  it('refuses Host and X-Svc-Ticket in any case (the engine sets them)', () => {
    expect(failure({ Host: 'evil.example' })).toEqual({ reason: 'invalid_header', detail: { header: 'Host' } });
    expect(failure({ 'x-svc-TICKET': 'forged' })).toEqual({ reason: 'invalid_header', detail: { header: 'x-svc-TICKET' } });
  });

  it('refuses a value broken after templating: line break, NUL, or a character outside Latin-1', () => {
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\0b', 'snow ☃', '😀']) {
      expect(failure({ 'X-Value': value }), JSON.stringify(value)).toEqual({ reason: 'invalid_header', detail: { header: 'X-Value' } });
    }
  });

  it('refuses a name that is not an HTTP token', () => {
    expect(failure({ 'Bad Name': 'x' })?.reason).toBe('invalid_header');
    expect(failure({ 'a:b': 'x' })?.reason).toBe('invalid_header');
  });

  it('writes a non-text value (a whole reference) as compact JSON', () => {
    expect(headerValueText(42)).toBe('42');
    expect(headerValueText({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(headerValueText(null)).toBe('null');
    expect(headerValueText('text')).toBe('text');
  });
});
