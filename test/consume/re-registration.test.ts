/**
 * Runs in flight across a re-registration or a delete, through the real Worker: each run's req waits
 * on a destination that never answers and fails at the outbound time limit (2 s in the test settings),
 * while the owner registers the ticket again. The late failures must not give their units back into
 * what the owner wrote meanwhile (docs/decisions.md, "Reservations across registrations").
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

const origin = inject('loopbackOrigin');
let project: TestProject;
let user: { user_id: string; id_token: string };

beforeAll(async () => {
  project = await createProject();
  user = await mintUser(project);
});

const slowFailing = { actions: [{ act: 'req', exe: { url: `${origin}/stall` } }] };
const consume = (ticketId: string, signedIn = false) =>
  call('POST', `/${signedIn ? 'tpa' : 'tp'}/${project.service_id}/${ticketId}`, { body: {}, token: signedIn ? user.id_token : undefined });
const codes = async (ticketId: string, times: number, signedIn = false) => {
  const out: string[] = [];
  for (let i = 0; i < times; i++) {
    const res = await consume(ticketId, signedIn);
    out.push(res.status === 200 ? 'ok' : res.json.code);
  }
  return out;
};

/** Waits (bounded) until the ticket's object shows the runs holding their units. */
async function untilHeld(ticketId: string, held: (state: { remaining: number | null; used: number }) => boolean) {
  const stub = ticketStub(env, project.service_id, ticketId);
  for (let i = 0; i < 200; i++) {
    const state = await runInDurableObject(stub, (_instance, ctx) => ({
      remaining: ctx.storage.sql.exec<{ remaining: number | null }>('SELECT remaining FROM ticket').toArray()[0]?.remaining ?? null,
      used: ctx.storage.sql.exec<{ used: number }>('SELECT used FROM user_usage WHERE user_id = ?', user.user_id).toArray()[0]?.used ?? 0,
    }));
    if (held(state)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the runs never held their units');
}

async function expectAllFailed(inFlight: Promise<{ status: number; json: any }>[]) {
  for (const res of await Promise.all(inFlight)) expect(res.json).toMatchObject({ code: 'REQUEST_FAILED', detail: { reason: 'timeout' } });
}

describe('reservations made under an earlier registration are settled against what the owner set since', () => {
  it.each([5, 0])('count: five runs fail after the owner re-registers with count %i; only that many consumptions succeed after it', async (count) => {
    const ticketId = `recount-${count}`;
    await registerTicket(project, ticketId, { count: 5, ...slowFailing });
    const inFlight = Array.from({ length: 5 }, () => consume(ticketId));
    await untilHeld(ticketId, (state) => state.remaining === 0);
    await registerTicket(project, ticketId, { count, actions: [] });
    const beforeFailures = await codes(ticketId, count);
    await expectAllFailed(inFlight);
    const afterFailures = await codes(ticketId, 6);
    expect([...beforeFailures, ...afterFailures].filter((code) => code === 'ok')).toHaveLength(count);
    expect(afterFailures.at(-1)).toBe('TICKET_EXHAUSTED');
    expect((await ticketStub(env, project.service_id, ticketId).status()).remaining).toBe(0);
  });

  it("limit_per_user: five of a user's runs fail after the ticket is deleted and registered again; the user gets the new limit once, not twice", async () => {
    const ticketId = 'relimit-deleted';
    await registerTicket(project, ticketId, { limit_per_user: 5, ...slowFailing });
    const inFlight = Array.from({ length: 5 }, () => consume(ticketId, true));
    await untilHeld(ticketId, (state) => state.used === 5);
    expect((await call('DELETE', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key })).status).toBe(200);
    await registerTicket(project, ticketId, { limit_per_user: 5, actions: [] });
    expect(await codes(ticketId, 6, true)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'USER_LIMIT_REACHED']);
    await expectAllFailed(inFlight);
    expect(await codes(ticketId, 2, true)).toEqual(['USER_LIMIT_REACHED', 'USER_LIMIT_REACHED']);
  });

  it("limit_per_user: the counters survive a plain re-registration, so the user's failed runs are given back into them", async () => {
    const ticketId = 'relimit-updated';
    await registerTicket(project, ticketId, { limit_per_user: 5, ...slowFailing });
    const inFlight = Array.from({ length: 5 }, () => consume(ticketId, true));
    await untilHeld(ticketId, (state) => state.used === 5);
    await registerTicket(project, ticketId, { limit_per_user: 5, actions: [] });
    expect(await codes(ticketId, 1, true)).toEqual(['USER_LIMIT_REACHED']);
    await expectAllFailed(inFlight);
    expect(await codes(ticketId, 6, true)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'USER_LIMIT_REACHED']);
  });

  it('count: a blank count on re-registration keeps the count the runs were reserved from, so their failures are given back', async () => {
    const ticketId = 'recount-blank';
    await registerTicket(project, ticketId, { count: 2, ...slowFailing });
    const inFlight = Array.from({ length: 2 }, () => consume(ticketId));
    await untilHeld(ticketId, (state) => state.remaining === 0);
    await registerTicket(project, ticketId, { actions: [] });
    await expectAllFailed(inFlight);
    expect(await codes(ticketId, 3)).toEqual(['ok', 'ok', 'TICKET_EXHAUSTED']);
  });
});
