import { describe, expect, it } from 'vitest';
import { CLIENT_SECRET_TEXT, fillClientSecret } from './client-secret';

describe('${CLIENT_SECRET} substitution', () => {
  it('fills every ${CLIENT_SECRET} in string values at any depth', () => {
    const rendered = { Authorization: 'Bearer ${CLIENT_SECRET}', nested: [{ key: '${CLIENT_SECRET}', twice: '${CLIENT_SECRET}:${CLIENT_SECRET}' }], n: 1 };
    expect(fillClientSecret(rendered, 's3cr3t')).toEqual({ Authorization: 'Bearer s3cr3t', nested: [{ key: 's3cr3t', twice: 's3cr3t:s3cr3t' }], n: 1 });
  });

  it('leaves object keys alone', () => {
    expect(fillClientSecret({ [CLIENT_SECRET_TEXT]: 'v' }, 's3cr3t')).toEqual({ [CLIENT_SECRET_TEXT]: 'v' });
  });

  it('inserts the secret as it is, even when it holds replacement patterns like $& or $$', () => {
    expect(fillClientSecret('k=${CLIENT_SECRET}', 'a$&b$$c')).toBe('k=a$&b$$c');
  });
});
