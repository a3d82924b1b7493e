/** The direct path (no queue): the request goes out at once and the destination's answer comes back in the same exchange. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { forward, origin } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'echo-key', 'sk-live-123');
});

describe('a direct forwarded request', () => {
  it('relays the destination answer with its status code and the key substituted in a header, and hides the key in the answer', async () => {
    const res = await forward(project, {
      url: `${origin}/echo/direct`,
      secretName: 'echo-key',
      headers: { authorization: 'Bearer $CLIENT_SECRET', 'content-type': 'application/json' },
      data: { hello: 'world' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-status-code')).toBe('200');
    expect(res.headers.get('x-svc-request-id')).toMatch(/^[0-9A-Za-z]+:[0-9A-Za-z]{16}$/);
    expect(res.json).toMatchObject({ method: 'POST', path: '/echo/direct' });
    expect(JSON.parse(res.json.body)).toEqual({ hello: 'world' });
    expect(res.json.headers.authorization).toBe('Bearer $CLIENT_SECRET');
    expect(res.text).not.toContain('sk-live-123');
  });

  it("relays the destination's own error status as an answer", async () => {
    const res = await forward(project, { url: `${origin}/echo-status/404`, method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-status-code')).toBe('404');
  });
});
