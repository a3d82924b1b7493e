/**
 * req through registered tickets and the real Worker, against the loopback server of
 * test/loopback-server.ts (reachable because the test settings allow private destinations).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { consumePost, loggedConsumptions, settle } from './run-support';

const origin = inject('loopbackOrigin');
const SECRET = 'whsec_9f8e7d6c5b4a3f2e1d0c';
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'partner', SECRET, { destinations: [`${origin}/`] });
  await putSecret(project, 'elsewhere', SECRET, { destinations: ['https://partner.example.com/'] });
});

describe('req through a registered ticket', () => {
  it('calls the destination; the Then chain reads ${response[status]}, ${response[headers][...]} and ${response[body][...]}', async () => {
    await registerTicket(project, 'req-forward', {
      actions: [
        {
          act: 'req',
          exe: {
            url: `${origin}/echo/\${body[kind]}`,
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Order': '${body[order][id]}' },
            data: { order: '${body[order]}', from: '${ip}' },
            params: { v: 2 },
            actions: [
              {
                act: 'resp',
                exe: {
                  body: {
                    status: '${response[status]}',
                    type: '${response[headers][content-type]}',
                    path: '${response[body][path]}',
                    query: '${response[body][query]}',
                    sent: '${response[body][body]}',
                    order: '${response[body][headers][x-order]}',
                  },
                },
              },
            ],
          },
        },
      ],
    });
    const res = await consumePost(project, 'req-forward', { kind: 'a/b', order: { id: 'A7', total: 3 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 200,
      type: 'application/json',
      path: '/echo/a%2Fb',
      query: '?v=2',
      sent: JSON.stringify({ order: { id: 'A7', total: 3 }, from: '203.0.113.9' }),
      order: 'A7',
    });
  });

  it('substitutes the Secret Key and never lets its value out: answer, error detail and action rows show ${CLIENT_SECRET}', async () => {
    await registerTicket(project, 'req-secret', {
      actions: [
        {
          act: 'req',
          exe: {
            url: `${origin}/reflect`,
            secretName: 'partner',
            headers: { 'X-Api-Key': '${CLIENT_SECRET}' },
            actions: [{ act: 'resp', exe: { body: { reflected: '${response[body]}', header: '${response[headers][x-reflect]}' } } }],
          },
        },
      ],
    });
    const res = await consumePost(project, 'req-secret');
    expect(res.status).toBe(200);
    expect(res.json.header).toBe('${CLIENT_SECRET}');
    expect(res.json.reflected).toMatch(
      /^plain: \$\{CLIENT_SECRET\}\nonce: \$\{CLIENT_SECRET\}\ntwice: \$\{CLIENT_SECRET\}\nthrice: \$\{CLIENT_SECRET\}\nfour: /,
    );
    expect(res.text).not.toContain(SECRET);

    await settle(project, 'req-secret');
    const [logged] = await loggedConsumptions(project, 'req-secret');
    expect(logged.actions[0].detail.sent).toMatchObject({ url: `${origin}/reflect`, headers: { 'X-Api-Key': '${CLIENT_SECRET}' } });
    expect(logged.actions[0].detail.received).toMatchObject({ status: 200, headers: { 'x-reflect': '${CLIENT_SECRET}' } });
    expect(JSON.stringify(logged)).not.toContain(SECRET);
  });

  it('an answer of 300 or more fails the consumption with REQUEST_FAILED { status, body }, the secret redacted', async () => {
    await registerTicket(project, 'req-500', {
      actions: [{ act: 'req', exe: { url: `${origin}/status/500`, secretName: 'partner', headers: { 'X-Api-Key': '${CLIENT_SECRET}' } } }],
    });
    const res = await consumePost(project, 'req-500');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      code: 'REQUEST_FAILED',
      stage: 'action',
      action: { act: 'req', path: 'actions[0]' },
      detail: { status: 500, body: { error: 'failed on purpose', key: '${CLIENT_SECRET}' } },
    });
    expect(res.text).not.toContain(SECRET);
  });

  it('a redirect is not followed: the 302 fails the action', async () => {
    await registerTicket(project, 'req-redirect', { actions: [{ act: 'req', exe: { url: `${origin}/redirect` } }] });
    const res = await consumePost(project, 'req-redirect');
    expect(res.json).toMatchObject({ code: 'REQUEST_FAILED', detail: { status: 302, body: 'moved' } });
  });

  it("a call outside the key's Destinations fails with ACTION_FORBIDDEN and its err chain runs", async () => {
    await registerTicket(project, 'req-pinned', {
      actions: [
        {
          act: 'req',
          exe: { url: `${origin}/echo`, secretName: 'elsewhere', headers: { Authorization: 'Bearer ${CLIENT_SECRET}' } },
          err: [{ act: 'resp', exe: { status: 502, body: { failed: '${error[code]}', reason: '${error[detail][reason]}' } } }],
        },
      ],
    });
    const res = await consumePost(project, 'req-pinned');
    expect(res.status).toBe(502);
    expect(res.json).toEqual({ failed: 'ACTION_FORBIDDEN', reason: 'destination_not_allowed' });
  });

  it('a destination that does not answer in time fails with REQUEST_FAILED { reason: timeout }', async () => {
    // The test settings shorten the 10-second limit (OUTBOUND_CALL_MS in vitest.config.ts).
    await registerTicket(project, 'req-stall', { actions: [{ act: 'req', exe: { url: `${origin}/stall` } }] });
    const res = await consumePost(project, 'req-stall');
    expect(res.json).toMatchObject({ code: 'REQUEST_FAILED', stage: 'action', detail: { reason: 'timeout' } });
  });

  it('an answer nested deeper than 64 levels is kept as its text, so the Then chain, the log and the answer never overflow', async () => {
    await registerTicket(project, 'req-deep-answer', {
      actions: [{ act: 'req', exe: { url: `${origin}/deep/100000`, actions: [{ act: 'resp', exe: { body: { kind: '${response[body]}' } } }] } }],
    });
    const res = await consumePost(project, 'req-deep-answer');
    expect(res.status).toBe(200);
    expect(typeof res.json.kind).toBe('string');
    expect(res.json.kind.length).toBe(200_000);
    await settle(project, 'req-deep-answer');
    const [logged] = await loggedConsumptions(project, 'req-deep-answer');
    expect(logged.failed).toBeFalsy();
  });
});
