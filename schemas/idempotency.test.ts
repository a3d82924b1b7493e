import { describe, expect, it } from 'vitest';
import { FieldIssueError } from './field-issue';
import { normalizeIdempotency, registeredIdempotency, windowMs } from './idempotency';
import { SIGNATURE_PRESETS } from './signature-presets';

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

describe('the default key of a provider preset', () => {
  it("every preset's default key is one reference of the request", () => {
    const keyed = SIGNATURE_PRESETS.filter((preset) => preset.idempotencyKey !== undefined);
    expect(keyed.map((preset) => preset.id)).toEqual(expect.arrayContaining(['stripe', 'github', 'shopify', 'standard-webhooks', 'svix']));
    for (const preset of keyed) expect(refusedField({ key: preset.idempotencyKey! })).toBeUndefined();
  });

  it('a ticket using a preset gets its key with the default window; its own idempotency wins; null opts out', () => {
    expect(registeredIdempotency(undefined, 'github', 'idempotency')).toEqual({ key: '${headers[X-GitHub-Delivery]}', window: '24h' });
    expect(registeredIdempotency(undefined, 'stripe', 'idempotency')).toEqual({ key: '${body[id]}', window: '24h' });
    expect(registeredIdempotency({ key: '${body[data][id]}', window: '1h' }, 'stripe', 'idempotency')).toEqual({ key: '${body[data][id]}', window: '1h' });
    expect(registeredIdempotency(null, 'stripe', 'idempotency')).toBeUndefined();
    expect(registeredIdempotency(undefined, 'msgraph', 'idempotency')).toBeUndefined();
    expect(registeredIdempotency(undefined, undefined, 'idempotency')).toBeUndefined();
  });
});
