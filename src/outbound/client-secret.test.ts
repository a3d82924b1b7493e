import { describe, expect, it } from 'vitest';
import { FORWARD_SECRET_TOKEN } from '../../schemas/forward-rules';
import { CLIENT_SECRET_TEXT, fillClientSecret, fillRequestSecret } from './client-secret';

describe('${CLIENT_SECRET} substitution', () => {
  it('fills every ${CLIENT_SECRET} in string values at any depth', () => {
    const rendered = { Authorization: 'Bearer ${CLIENT_SECRET}', nested: [{ key: '${CLIENT_SECRET}', twice: '${CLIENT_SECRET}:${CLIENT_SECRET}' }], n: 1 };
    expect(fillClientSecret(rendered, 's3cr3t', CLIENT_SECRET_TEXT)).toEqual({
      Authorization: 'Bearer s3cr3t',
      nested: [{ key: 's3cr3t', twice: 's3cr3t:s3cr3t' }],
      n: 1,
    });
  });

  it('leaves object keys alone', () => {
    expect(fillClientSecret({ [CLIENT_SECRET_TEXT]: 'v' }, 's3cr3t', CLIENT_SECRET_TEXT)).toEqual({ [CLIENT_SECRET_TEXT]: 'v' });
  });

  it('inserts the secret as it is, even when it holds replacement patterns like $& or $$', () => {
    expect(fillClientSecret('k=${CLIENT_SECRET}', 'a$&b$$c', CLIENT_SECRET_TEXT)).toBe('k=a$&b$$c');
  });
});

describe('secret substitution in a request, by the token its caller names', () => {
  const request = {
    url: 'https://api.example.com/bot$CLIENT_SECRET/send?key=$CLIENT_SECRET',
    headers: { Authorization: 'Bearer $CLIENT_SECRET', 'X-Req': '${CLIENT_SECRET}' },
    data: { deep: [{ token: 'a$CLIENT_SECRET' }], n: 1 },
    params: { key: '$CLIENT_SECRET' },
  };
  const forwarding = { secret: 's3cr3t', token: FORWARD_SECRET_TOKEN, inUrl: true };

  it('fills $CLIENT_SECRET in the url, header values, data and params at any depth when the url is allowed', () => {
    expect(fillRequestSecret(request, forwarding)).toEqual({
      url: 'https://api.example.com/bots3cr3t/send?key=s3cr3t',
      headers: { Authorization: 'Bearer s3cr3t', 'X-Req': '${CLIENT_SECRET}' },
      data: { deep: [{ token: 'as3cr3t' }], n: 1 },
      params: { key: 's3cr3t' },
    });
  });

  it('leaves the url as written when the caller does not allow it there', () => {
    const filled = fillRequestSecret(request, { ...forwarding, inUrl: false });
    expect(filled.url).toBe(request.url);
    expect(filled.headers.Authorization).toBe('Bearer s3cr3t');
  });

  it("fills only the caller's own token: ${CLIENT_SECRET} for req leaves $CLIENT_SECRET alone", () => {
    const filled = fillRequestSecret(request, { secret: 's3cr3t', token: CLIENT_SECRET_TEXT, inUrl: false });
    expect(filled.headers).toEqual({ Authorization: 'Bearer $CLIENT_SECRET', 'X-Req': 's3cr3t' });
    expect(filled.params).toEqual({ key: '$CLIENT_SECRET' });
  });

  it('percent-encodes the secret in the url so it cannot add a path segment, query, parameter or fragment; : and @ stay', () => {
    const filled = fillRequestSecret({ url: 'https://api.example.com/$CLIENT_SECRET/x', headers: {} }, { ...forwarding, secret: '123:AB/c?d=1&e#f@g h' });
    expect(filled.url).toBe('https://api.example.com/123:AB%2Fc%3Fd%3D1%26e%23f@g%20h/x');
  });

  it('leaves out data and params the request does not have', () => {
    expect(fillRequestSecret({ url: 'https://api.example.com/', headers: {} }, forwarding)).toEqual({ url: 'https://api.example.com/', headers: {} });
  });
});
