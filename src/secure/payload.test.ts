import { describe, expect, it } from 'vitest';
import { mirroredBody, mirroredUser } from './payload';

const user = { user_id: 'u-1', email: 'ada@example.com', access_group: 5, attributes: { tier: 'pro', locale: 'KR', email: 'claimed@example.com' } };

describe("what the customer's API receives", () => {
  it('user is what ${user} reads: user_id, access_group, email and the attributes; the server\u2019s fields win over a claim of that name', () => {
    expect(mirroredUser(user)).toEqual({ user_id: 'u-1', access_group: 5, email: 'ada@example.com', tier: 'pro', locale: 'KR' });
    expect(mirroredUser({ user_id: 'u-2', access_group: 1, attributes: {} })).toEqual({ user_id: 'u-2', access_group: 1 });
  });

  it('the body is { user, data, api_key } with the key, { user, data } without; absent data is null', () => {
    expect(JSON.parse(mirroredBody(user, { a: [1] }, 'srk'))).toEqual({ user: mirroredUser(user), data: { a: [1] }, api_key: 'srk' });
    expect(JSON.parse(mirroredBody(user, 'text', null))).toEqual({ user: mirroredUser(user), data: 'text' });
    expect(JSON.parse(mirroredBody(user, undefined, null))).toEqual({ user: mirroredUser(user), data: null });
  });
});
