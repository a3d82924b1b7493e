/** Durable Object ids kept by name (src/platform/object-ids.ts): the id idFromName gives, per namespace. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { idFromNameOnce } from '../../src/platform/object-stubs';
import { ticketStub } from '../../src/platform/object-stubs';

describe('idFromNameOnce', () => {
  it("answers each namespace's own id for a name, the first time and again", () => {
    for (const name of ['svc-a/hook', 'svc-a/other', 'svc-b/hook']) {
      for (let i = 0; i < 2; i++) {
        expect(idFromNameOnce(env.TICKETS, name).toString()).toBe(env.TICKETS.idFromName(name).toString());
        expect(idFromNameOnce(env.REALTIME, name).toString()).toBe(env.REALTIME.idFromName(name).toString());
      }
    }
    expect(idFromNameOnce(env.TICKETS, 'svc-a/hook').toString()).not.toBe(idFromNameOnce(env.TICKETS, 'svc-a/other').toString());
  });

  it("a ticket's stub reaches the same object from one request to the next", async () => {
    const first = ticketStub(env, 'svc-ids', 'hook');
    expect(await first.status()).toEqual({ exists: false, remaining: null });
    const again = ticketStub(env, 'svc-ids', 'hook');
    expect(again.id.toString()).toBe(env.TICKETS.idFromName('svc-ids/hook').toString());
    expect(await again.status()).toEqual({ exists: false, remaining: null });
  });
});
