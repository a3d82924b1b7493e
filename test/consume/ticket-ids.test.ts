/**
 * The ticket ids each isolate keeps per project (src/consume/ticket-ids.ts): a made-up ticket is answered
 * as the ticket's object answers it, and a ticket registered through another isolate is found at once.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StoredTicket } from '../../schemas/ticket-types';
import { saveDirectoryEntry } from '../../src/platform/ticket-directory';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await registerTicket(project, 'known', { actions: [] });
  // This isolate now holds the project's ids.
  expect((await call('GET', `/tg/${project.service_id}/known`)).status).toBe(200);
});

/** Registers a ticket the way another isolate does: the object's copy, then the directory's, nothing noted here. */
async function registerElsewhere(ticketId: string) {
  const now = Date.now();
  const ticket: StoredTicket = { ticket_id: ticketId, condition: {}, actions: [], timestamp: now, updated: now, rules_version: 2 };
  await ticketStub(env, project.service_id, ticketId).store(ticket, null);
  await saveDirectoryEntry(env, project.service_id, ticket);
}

describe('ticket ids kept in the isolate', () => {
  it('a consumption right after a registration made through another isolate finds the ticket, on every consume route', async () => {
    await registerElsewhere('elsewhere-1');
    expect((await call('GET', `/tg/${project.service_id}/elsewhere-1`)).status).toBe(200);
    await registerElsewhere('elsewhere-2');
    // Made-up ids asked together with it share the directory read and do not hide it.
    const [found, ...missing] = await Promise.all([
      call('POST', `/tp/${project.service_id}/elsewhere-2`, { body: {} }),
      ...Array.from({ length: 20 }, (_, i) => call('GET', `/tg/${project.service_id}/made-up-${i}`)),
    ]);
    expect(found.status).toBe(200);
    for (const res of missing) expect(res.json).toMatchObject({ code: 'TICKET_NOT_FOUND', stage: 'ticket', ticket_id: expect.stringMatching(/^made-up-/) });
    await registerElsewhere('elsewhere-3');
    expect((await call('GET', `/publ/check/${project.service_id}/${project.owner_id}/elsewhere-3`)).status).toBe(200);
  });

  it('a made-up ticket is answered as the object answers it: a refused body first, else TICKET_NOT_FOUND at stage ticket', async () => {
    const tooDeep = { raw: '['.repeat(5_000) + ']'.repeat(5_000), headers: { 'content-type': 'application/json' } };
    const known = await call('POST', `/tp/${project.service_id}/known`, tooDeep);
    const madeUp = await call('POST', `/tp/${project.service_id}/made-up-body`, tooDeep);
    expect(known.json).toMatchObject({ code: 'INVALID_REQUEST', stage: 'ticket' });
    expect(madeUp.status).toBe(known.status);
    expect(madeUp.json).toEqual(known.json);
    const missing = await call('POST', `/tp/${project.service_id}/made-up-body`, { body: { a: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ code: 'TICKET_NOT_FOUND', message: 'The ticket does not exist.', stage: 'ticket', ticket_id: 'made-up-body' });
  });

  it('a ticket deleted and registered again is found; a deleted one is TICKET_NOT_FOUND', async () => {
    await registerTicket(project, 'again', { actions: [] });
    const del = await call('DELETE', `/v1/projects/${project.service_id}/tickets/again`, { token: project.owner_key });
    expect(del.status).toBe(200);
    expect((await call('GET', `/tg/${project.service_id}/again`)).json).toMatchObject({ code: 'TICKET_NOT_FOUND', stage: 'ticket' });
    await registerElsewhere('again');
    expect((await call('GET', `/tg/${project.service_id}/again`)).status).toBe(200);
  });
});
