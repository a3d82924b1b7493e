/**
 * Issue 26, bad input: a handler that throws (in the Worker, a Durable Object, or the realtime socket server)
 * never sends a stack trace or an internal message to the caller. Each surface is made to fail for real: a
 * stored row the code cannot read, an object whose table is gone, a socket server that cannot name itself.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { forwardCaller } from '../../src/forward/caller';
import { call, createProject, registerTicket } from '../helpers/api';
import { from } from './support';
import { forwardQueueStub, ticketStub } from '../../src/platform/object-stubs';

/** What must never reach a caller: a stack frame, an error class, SQLite's or JSON's own words, a source path. */
const INTERNALS = /\bat \S+ \(|\.ts\b|\.js\b|SyntaxError|TypeError|Error:|SQLITE|no such table|JSON at position|Unexpected token|stack/i;

describe('a handler that throws sends no stack trace or internal message (issue 26, bad input)', () => {
  it('the Worker: a stored setting it cannot read answers 500 INTERNAL_ERROR, on a consume route and an owner route', async () => {
    const project = await createProject();
    await registerTicket(project, 'plain', { actions: [] });
    await env.DB.prepare("UPDATE projects SET flood_limits = '{not json' WHERE service_id = ?").bind(project.service_id).run();
    const consumed = await call('GET', `/tg/${project.service_id}/plain`, { headers: from('192.0.2.150') });
    expect(consumed.status).toBe(500);
    expect(consumed.json).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'ticket' });
    const owner = await call('GET', '/v1/owner', { token: project.owner_key });
    expect(owner.status).toBe(500);
    expect(owner.json).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error.' });
    for (const res of [consumed, owner]) expect(res.text).not.toMatch(INTERNALS);
  });

  it("a ticket's Durable Object whose table is gone: the consumption answers 500 INTERNAL_ERROR and nothing of SQLite's error", async () => {
    const project = await createProject();
    await registerTicket(project, 'broken', { actions: [] });
    const stub = ticketStub(env, project.service_id, 'broken');
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec('DROP TABLE ticket');
    });
    // The running object keeps the definition in memory: a fresh one reads its storage.
    await evictDurableObject(stub);
    const res = await call('GET', `/tg/${project.service_id}/broken`, { headers: from('192.0.2.151') });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'ticket' });
    expect(res.text).not.toMatch(INTERNALS);
  });

  it("a caller's forwarding Durable Object whose table is gone: the queue count answers 500 INTERNAL_ERROR and nothing of SQLite's error", async () => {
    const project = await createProject();
    const caller = await forwardCaller({ kind: 'anonymous' }, '192.0.2.152', 'flood-tests');
    const stub = forwardQueueStub(env, { serviceId: project.service_id, callerKey: caller.key });
    expect(await stub.queueCount('q')).toBe(0);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec('DROP TABLE requests');
    });
    const res = await call('GET', `/v1/projects/${project.service_id}/forward/queue?queue=q`, { headers: from('192.0.2.152') });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error.' });
    expect(res.text).not.toMatch(INTERNALS);
  });

  it('the realtime socket server failing while it sets a socket up sends one error frame with no stack, and closes 1011', async () => {
    // An object reached by a unique id has no name, which partyserver cannot set a socket up without.
    const res = await env.REALTIME.get(env.REALTIME.newUniqueId()).fetch('https://svc.test/v1/projects/x/realtime', { headers: { upgrade: 'websocket' } });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const frames: string[] = [];
    const closed = new Promise<number>((resolve) => ws.addEventListener('close', (event) => resolve(event.code)));
    ws.addEventListener('message', (event) => frames.push(String(event.data)));
    ws.accept();
    expect(await closed).toBe(1011);
    expect(frames.map((frame) => JSON.parse(frame))).toEqual([{ type: 'error', message: 'Internal server error.' }]);
    expect(frames.join('')).not.toMatch(INTERNALS);
  });

  it('the realtime socket server failing without an upgrade answers 500 INTERNAL_ERROR with no stack', async () => {
    const res = await env.REALTIME.get(env.REALTIME.newUniqueId()).fetch('https://svc.test/v1/projects/x/realtime');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error.' });
    expect(text).not.toMatch(INTERNALS);
  });
});
