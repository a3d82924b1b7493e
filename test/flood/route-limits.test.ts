/**
 * Issue 26 items 1 and 4 beyond the consume routes: forwarding (dispatch and reads), the realtime join and
 * secureRequest count the caller's address per project before anything else; the owner's routes count in
 * a limit of their own, higher one.
 */
import { describe, expect, it } from 'vitest';
import { call, createProject, mintUser } from '../helpers/api';
import { forward, history, origin, poll, queueCount, received, uniquePath } from '../forward/support';
import { upgradeRequest } from '../realtime/support';
import { secureRequest } from '../secure/support';
import { burst, burstInOneWindow, freshWindow, from } from './support';

const callerRefusal = {
  code: 'TOO_MANY_REQUESTS',
  message: 'Too many requests to this project from your address: at most 2000 every 10 seconds; try again after Retry-After.',
};

describe('per-caller limits of forwarding, realtime and secureRequest (issue 26 item 4)', () => {
  it("over its limit a caller is refused 429 on every forwarding route and the realtime join, nothing sent; another address and the owner's routes from the same address are not", async () => {
    const project = await createProject();
    const ip = '192.0.2.60';
    const as = { headers: from(ip) };
    // Queue counts without a queue name: refused for that after the limit is counted, so they cost nothing else.
    expect(new Set(await burstInOneWindow(2000, () => call('GET', `/v1/projects/${project.service_id}/forward/queue`, as)))).toEqual(new Set([400]));
    const count = await queueCount(project, 'q', as);
    expect(count.status).toBe(429);
    expect(count.headers.get('retry-after')).toBe('10');
    expect(count.json).toEqual(callerRefusal);
    const path = uniquePath('/echo/flooded');
    const reads = [
      poll(project, { id: 'AAAAAAAA:BBBBBBBB', url: `${origin}${path}`, method: 'GET' }, as),
      history(project, { url: `${origin}${path}`, method: 'GET' }, as),
      forward(project, { url: `${origin}${path}`, method: 'GET' }, as),
      upgradeRequest(project.service_id, { ip, userAgent: 'flood-tests' }).then(async (res) => ({ status: res.status, json: await res.json() })),
    ];
    for (const res of await Promise.all(reads)) {
      expect(res.status).toBe(429);
      expect(res.json).toEqual(callerRefusal);
    }
    expect(await received(path)).toBe(0);

    expect((await queueCount(project, 'q', { headers: from('192.0.2.61') })).status).toBe(200);
    const owner = await call('GET', `/v1/projects/${project.service_id}/forward/requests`, { token: project.owner_key, headers: from(ip) });
    expect(owner.status).toBe(200);
  });

  it('secureRequest counts in a lower limit of its own (300 calls every 10 s) before the caller is identified; nothing is sent past it', async () => {
    const project = await createProject();
    const user = await mintUser(project);
    const ip = '192.0.2.70';
    await freshWindow();
    // Bodies the route refuses once the caller is identified: counted, sending nothing.
    const statuses = await burst(300, () =>
      call('POST', `/v1/projects/${project.service_id}/secure-request`, { token: user.id_token, raw: 'not json', headers: from(ip) }),
    );
    expect(new Set(statuses)).toEqual(new Set([400]));
    const path = uniquePath('/echo/secure-flood');
    const refused = await call('POST', `/v1/projects/${project.service_id}/secure-request`, {
      token: user.id_token,
      body: { url: `${origin}${path}` },
      headers: from(ip),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.json).toEqual({
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many secureRequest calls to this project from your address: at most 300 every 10 seconds; try again after Retry-After.',
    });
    expect(await received(path)).toBe(0);
    // The same caller's other routes count in their own limit, and a signed-out call to secureRequest is refused 429 too (before AUTH_REQUIRED).
    expect((await queueCount(project, 'q', { headers: from(ip) })).status).toBe(200);
    expect((await secureRequest(project, { url: `${origin}${path}` })).status).toBe(401);
    expect((await call('POST', `/v1/projects/${project.service_id}/secure-request`, { body: { url: `${origin}${path}` }, headers: from(ip) })).status).toBe(
      429,
    );
  });
});
