import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ticketStub } from '../src/platform/object-stubs';

describe('the runnable worker', () => {
  it('answers the health route', async () => {
    const res = await exports.default.fetch('https://svc.test/v1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('answers an unknown route with a flat NOT_FOUND error', async () => {
    const res = await exports.default.fetch('https://svc.test/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps the remaining count when an update leaves count blank', async () => {
    const stub = ticketStub(env, 'svc1', 't1');
    const ticket = { ticket_id: 't1', condition: {}, actions: [], timestamp: 1, updated: 1, rules_version: 2 as const };
    expect(await stub.store(ticket, 5)).toBe(5);
    expect(await stub.store(ticket, undefined)).toBe(5);
    expect(await stub.store(ticket, null)).toBe(null);
  });

  it('has the D1 migrations applied', async () => {
    const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'projects'").first<{ n: number }>();
    expect(row?.n).toBe(1);
  });
});
