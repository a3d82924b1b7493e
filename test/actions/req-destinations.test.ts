/**
 * The private-address guard through registered tickets and the real Worker: a req whose url host comes from
 * the request body (${body[host]}) is refused with ACTION_FORBIDDEN for every spelling of the loopback
 * address, and nothing reaches the loopback server (test/loopback-server.ts counts what it receives by path).
 *
 * The test settings allow private destinations so that other tests can call the loopback server. These tests
 * switch the setting off on the Worker's env, as production has it: that env object is the one the Worker and
 * its Durable Objects read, and each test file runs in its own workerd, so the change stays in this file; it
 * is undone after each test.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createProject, registerTicket, type TestProject } from '../helpers/api';
import { consumePost } from './run-support';

const origin = inject('loopbackOrigin');
const port = new URL(origin).port;
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

const refusePrivateDestinations = () => {
  env.ALLOW_PRIVATE_DESTINATIONS = 'false';
};
afterEach(() => {
  env.ALLOW_PRIVATE_DESTINATIONS = 'true';
});

/** How many requests the loopback server received for this path. */
async function received(path: string): Promise<number> {
  const res = await fetch(`${origin}/received?path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { count: number }).count;
}

/** A ticket whose one req calls http://${body[host]}:<loopback port><path>; path is unique to the test. */
async function registerHostFromBody(ticketId: string): Promise<string> {
  const path = `/echo/${ticketId}-${crypto.randomUUID()}`;
  await registerTicket(project, ticketId, { actions: [{ act: 'req', exe: { url: `http://\${body[host]}:${port}${path}` } }] });
  return path;
}

/** Spellings of 127.0.0.1: extra trailing dots (left as a name by URL parsing), numeric forms, mixed case,
 * fullwidth and ideographic dots (mapped by IDNA after the template percent-encodes them). */
const LOOPBACK_SPELLINGS = [
  '127.0.0.1..',
  '127.1..',
  '0x7f.1..',
  '127.0.0.1...',
  '0X7F.1..',
  '2130706433..',
  '127.0.0.1.',
  '127。0。0。1',
  '127．0．0．1．．',
  '127.0.0.1.。',
  'LOCALHOST..',
];

describe('req destinations through a registered ticket', () => {
  it('every spelling of the loopback address in ${body[host]} is refused with ACTION_FORBIDDEN { reason: private_destination } and nothing is sent', async () => {
    const path = await registerHostFromBody('req-host-spellings');
    refusePrivateDestinations();
    for (const host of LOOPBACK_SPELLINGS) {
      const res = await consumePost(project, 'req-host-spellings', { host });
      expect(res.status, host).toBe(400);
      expect(res.json, host).toMatchObject({
        code: 'ACTION_FORBIDDEN',
        stage: 'action',
        action: { act: 'req', path: 'actions[0]' },
        detail: { reason: 'private_destination' },
      });
      expect(res.json.message, host).toMatch(/loopback address|not a public hostname/);
    }
    expect(await received(path)).toBe(0);

    // The same ticket reaches the server once private destinations are allowed: the count above could have moved.
    env.ALLOW_PRIVATE_DESTINATIONS = 'true';
    expect((await consumePost(project, 'req-host-spellings', { host: '127.0.0.1' })).status).toBe(200);
    expect(await received(path)).toBe(1);
  });

  it('a hostname with an empty label in ${body[host]} is refused with ACTION_FORBIDDEN and a message that says so', async () => {
    await registerHostFromBody('req-host-empty-label');
    refusePrivateDestinations();
    for (const host of ['a..example.com', '.example.com', 'example.com..', 'example。。com']) {
      const res = await consumePost(project, 'req-host-empty-label', { host });
      expect(res.json, host).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'private_destination' } });
      expect(res.json.message, host).toMatch(/has an empty label/);
    }
  });

  it('an address with percent-encoded dots written in the url by the ticket is refused the same way', async () => {
    const path = `/echo/req-host-pct-${crypto.randomUUID()}`;
    await registerTicket(project, 'req-host-pct', { actions: [{ act: 'req', exe: { url: `http://127.0.0.1%2e%2e:${port}${path}` } }] });
    refusePrivateDestinations();
    const res = await consumePost(project, 'req-host-pct');
    expect(res.json).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'private_destination', host: '127.0.0.1..' } });
    expect(res.json.message).toBe('The destination is not a public address: 127.0.0.1 is a loopback address (written 127.0.0.1..).');
    expect(await received(path)).toBe(0);
  });
});
