import { describe, expect, it } from 'vitest';
import { checked } from './field-issue';
import { invalidField } from './paths';

describe('a check returns its value or the issue of the field it refused', () => {
  it('a value is returned as ok', async () => {
    expect(await checked(() => 5)).toEqual({ ok: true, value: 5 });
  });

  it('a refused field is returned as its issue: code, message headed by the path, and the path', async () => {
    const result = await checked(() => {
      throw invalidField('actions[0].exe.url', 'must be a URL');
    });
    expect(result).toEqual({ ok: false, issue: { code: 'INVALID_PARAMETER', message: 'actions[0].exe.url: must be a URL', field: 'actions[0].exe.url' } });
  });

  it('a refusal of the whole input has an empty field and a message without a path', async () => {
    const result = await checked(() => Promise.reject(invalidField('', 'the ticket must be a JSON object')));
    expect(result).toEqual({ ok: false, issue: { code: 'INVALID_PARAMETER', message: 'the ticket must be a JSON object', field: '' } });
  });

  it('any other error is not an issue: it propagates (a fault of the check is not bad input)', async () => {
    await expect(checked(() => JSON.parse('{'))).rejects.toThrow(SyntaxError);
  });
});
