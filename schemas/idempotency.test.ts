import { describe, expect, it } from 'vitest';
import { FieldIssueError } from './field-issue';
import { normalizeIdempotency, windowMs } from './idempotency';

const refusedField = (input: { key: string; window?: string }): string | undefined => {
  try {
    normalizeIdempotency(input, 'idempotency');
    return undefined;
  } catch (err) {
    if (err instanceof FieldIssueError) return err.issue.field;
    throw err;
  }
};

describe('the idempotency definition', () => {
  it('a window is a positive number of s, m, h or d up to 7 days', () => {
    expect(windowMs('90s')).toBe(90_000);
    expect(windowMs('30m')).toBe(1_800_000);
    expect(windowMs('24h')).toBe(86_400_000);
    expect(windowMs('7d')).toBe(604_800_000);
    for (const bad of ['0s', '-1h', '8d', '169h', '1w', '', 'soon', '1.5h', '01h']) expect(windowMs(bad)).toBeNull();
  });

  it("the window defaults to '24h'", () => {
    expect(normalizeIdempotency({ key: '${headers[webhook-id]}' }, 'idempotency')).toEqual({ key: '${headers[webhook-id]}', window: '24h' });
  });

  it('a bad window is refused naming idempotency.window', () => {
    for (const window of ['0s', '-5m', '8d', 'garbage']) expect(refusedField({ key: '${headers[a]}', window })).toBe('idempotency.window');
  });

  it('a key that is not one reference of the request, or too long, is refused naming idempotency.key', () => {
    for (const key of [
      'webhook-id',
      '${headers[a]}${headers[b]}',
      'x-${headers[a]}',
      '${ip}',
      '${user[id]}',
      '${body}',
      '${ticket[id]}',
      '${headers[a',
      `\${body[${'a'.repeat(260)}]}`,
    ]) {
      expect(refusedField({ key })).toBe('idempotency.key');
    }
  });
});
