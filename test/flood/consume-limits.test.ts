/**
 * Issue 26 item 1 on the consume routes: a caller's address is counted per ticket and the project's callers
 * together, in the Rate Limiting bindings, before the ticket's object is reached; the owner picks the steps.
 */
import { describe, expect, it } from 'vitest';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { countRows } from '../logs/log-helpers';
import { burst, burstInOneWindow, consumeFrom, freshWindow, setFloodLimits } from './support';

const remaining = async (project: TestProject, ticketId: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key })).json.count;

const callerRefusal = (limit: number) => ({
  code: 'TOO_MANY_REQUESTS',
  message: `Too many requests to this ticket from your address: at most ${limit} every 10 seconds; try again after Retry-After.`,
  stage: 'ticket',
});

/** A project whose callers may consume each ticket 50 times every 10 s, with a ticket `counted` of count 1000. */
async function lowLimitProject(): Promise<TestProject> {
  const project = await createProject();
  await setFloodLimits(project, { per_caller_per_ticket: 50 });
  await registerTicket(project, 'counted', { count: 1000, actions: [] });
  return project;
}

describe('flood limits of the consume routes (issue 26)', () => {
  it("a project starts with the default limits, which the owner reads in its project's settings", async () => {
    const project = await createProject();
    const owner = await call('GET', '/v1/owner', { token: project.owner_key });
    expect(owner.json.flood_limits).toEqual({ per_caller_per_ticket: 500, per_project: 10_000, tickets: {} });
  });

  it('over its limit at a ticket a caller is answered 429 with Retry-After and the error body, before the ticket is reached: no count taken, no log row', async () => {
    const project = await lowLimitProject();
    await freshWindow();
    expect(new Set(await burst(50, () => consumeFrom(project, 'counted', '192.0.2.10')))).toEqual(new Set([200]));
    const refused = await consumeFrom(project, 'counted', '192.0.2.10');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.json).toEqual(callerRefusal(50));
    expect(await remaining(project, 'counted')).toBe(950);
    expect((await countRows(project.service_id, 'counted')).logs).toBe(50);
  });

  it('only CF-Connecting-IP names the caller: X-Forwarded-For, X-Real-IP, True-Client-IP or another user agent do not move it to another bucket', async () => {
    const project = await lowLimitProject();
    await freshWindow();
    await burst(50, () => consumeFrom(project, 'counted', '192.0.2.20'));
    const disguises: Record<string, string>[] = [
      { 'x-forwarded-for': '198.51.100.77' },
      { 'x-real-ip': '198.51.100.78' },
      { 'true-client-ip': '198.51.100.79' },
      { 'x-forwarded-for': '198.51.100.80, 192.0.2.20', 'x-real-ip': '198.51.100.81', 'true-client-ip': '198.51.100.82' },
      { 'user-agent': 'another-browser/1.0' },
    ];
    for (const headers of disguises) expect((await consumeFrom(project, 'counted', '192.0.2.20', headers)).status, JSON.stringify(headers)).toBe(429);
    // Another address is another caller; so is the same address at another ticket.
    expect((await consumeFrom(project, 'counted', '192.0.2.21')).status).toBe(200);
    await registerTicket(project, 'other', { actions: [] });
    expect((await consumeFrom(project, 'other', '192.0.2.20')).status).toBe(200);
  });

  it('a 429 carries nothing of another caller: the same body whoever else called, with neither address nor count in it', async () => {
    const project = await lowLimitProject();
    await freshWindow();
    await burst(25, () => consumeFrom(project, 'counted', '192.0.2.31'));
    await burst(50, () => consumeFrom(project, 'counted', '192.0.2.30'));
    const refused = await consumeFrom(project, 'counted', '192.0.2.30', { 'x-forwarded-for': '192.0.2.31' });
    expect(refused.json).toEqual(callerRefusal(50));
    expect(refused.text).not.toMatch(/192\.0\.2\.|flood-tests|\b25\b/);
    expect([...refused.headers.keys()].filter((name) => !name.startsWith('access-control-')).sort()).toEqual(['content-type', 'retry-after']);
  });

  it('an IPv6 caller counts as its /64: another address of the same /64 is refused, one of the next /64 is not', async () => {
    const project = await lowLimitProject();
    await freshWindow();
    await burst(50, () => consumeFrom(project, 'counted', '2001:db8:1:2::1'));
    expect((await consumeFrom(project, 'counted', '2001:db8:1:2:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await consumeFrom(project, 'counted', '2001:0db8:0001:0002::9')).status).toBe(429);
    expect((await consumeFrom(project, 'counted', '2001:db8:1:3::1')).status).toBe(200);
  });

  it("the project's limit counts all its callers together, refused before the ticket is reached; another project stays open", async () => {
    const project = await createProject();
    await setFloodLimits(project, { per_project: 1000 });
    await registerTicket(project, 'counted', { count: 10, actions: [] });
    const neighbour = await createProject();
    await registerTicket(neighbour, 'counted', { actions: [] });
    // 1000 requests from 20 addresses (50 each, far under a caller's 500), at an id no ticket can have (refused without its object).
    const statuses = await burstInOneWindow(1000, (i) => consumeFrom(project, 'no.such.ticket', `192.0.2.${100 + (i % 20)}`));
    expect(new Set(statuses)).toEqual(new Set([400]));
    const refused = await consumeFrom(project, 'counted', '203.0.113.200');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      code: 'TOO_MANY_REQUESTS',
      message: "Too many requests to this project's tickets from all callers together: at most 1000 every 10 seconds; try again after Retry-After.",
      stage: 'ticket',
    });
    expect(await remaining(project, 'counted')).toBe(10);
    expect((await consumeFrom(neighbour, 'counted', '203.0.113.200')).status).toBe(200);
  });

  it('the owner can give one ticket a per-caller limit of its own', async () => {
    const project = await createProject();
    const settings = await setFloodLimits(project, { tickets: { hot: 50 } });
    expect(settings.flood_limits).toEqual({ per_caller_per_ticket: 500, per_project: 10_000, tickets: { hot: 50 } });
    await registerTicket(project, 'hot', { actions: [] });
    await registerTicket(project, 'cold', { actions: [] });
    await freshWindow();
    await burst(50, () => consumeFrom(project, 'hot', '192.0.2.40'));
    expect((await consumeFrom(project, 'hot', '192.0.2.40')).status).toBe(429);
    expect(new Set(await burst(60, () => consumeFrom(project, 'cold', '192.0.2.40')))).toEqual(new Set([200]));
  });

  it('a dry run (/publ/check) counts in the same limit as consumptions', async () => {
    const project = await lowLimitProject();
    await freshWindow();
    await burst(50, () => call('GET', `/publ/check/${project.service_id}/${project.owner_id}/counted`, { headers: { 'cf-connecting-ip': '192.0.2.50' } }));
    expect((await consumeFrom(project, 'counted', '192.0.2.50')).status).toBe(429);
  });

  it.each([
    [
      'per_caller_per_ticket',
      { per_caller_per_ticket: 51 },
      'flood_limits.per_caller_per_ticket',
      /must be one of 50, 500, 5000 \(requests every 10 seconds\)/,
    ],
    ['per_project', { per_project: 500 }, 'flood_limits.per_project', /must be one of 1000, 10000, 100000/],
    ['a ticket of tickets', { tickets: { hot: 7 } }, 'flood_limits.tickets.hot', /must be one of 50, 500, 5000/],
    ['an unknown field', { per_minute: 50 }, 'flood_limits.per_minute', /per_minute/],
  ])('a flood limit outside the steps is refused with INVALID_PARAMETER naming the field: %s', async (_, limits, field, message) => {
    const project = await createProject();
    const res = await call('PATCH', `/v1/projects/${project.service_id}/settings`, { token: project.owner_key, body: { flood_limits: limits } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field } });
    expect(res.json.message).toMatch(message);
  });

  it('null puts every limit back to its default', async () => {
    const project = await createProject();
    await setFloodLimits(project, { per_caller_per_ticket: 5000, per_project: 100_000 });
    expect((await setFloodLimits(project, null)).flood_limits).toEqual({ per_caller_per_ticket: 500, per_project: 10_000, tickets: {} });
  });
});
