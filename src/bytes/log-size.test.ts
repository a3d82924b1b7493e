import { describe, expect, it } from 'vitest';
import { fitForLog, MAX_LOG_VALUE_CHARS } from './log-size';

describe('log rows fit the storage limits', () => {
  it('a small value is kept as it is', () => {
    const value = { sent: { url: 'https://x.test' }, received: { status: 200, body: 'ok' } };
    expect(fitForLog(value)).toBe(value);
  });

  it('a 5 MiB response body is cut to fit, with the rest of the row kept and marked truncated', () => {
    const value = { path: 'actions[0]', received: { status: 200, body: 'x'.repeat(5 * 1024 * 1024) } };
    const fitted = fitForLog(value);
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(MAX_LOG_VALUE_CHARS);
    expect(fitted).toMatchObject({ path: 'actions[0]', truncated: true, received: { status: 200 } });
    expect((fitted.received as { body: string }).body).toMatch(/more characters cut\]$/);
  });

  it('a value made of many small strings becomes a marked preview', () => {
    const value = { list: Array.from({ length: 20_000 }, (_, i) => `item-${i}`) };
    const fitted = fitForLog(value);
    expect(fitted).toMatchObject({ truncated: true });
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(MAX_LOG_VALUE_CHARS);
  });
});
