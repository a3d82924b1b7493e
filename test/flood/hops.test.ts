/**
 * Issue 26 item 5: every outbound call carries this deployment's hop marker (x-svc-hop, one deeper than the
 * request that caused it), and a request arriving more than MAX_HOPS (2) calls deep is refused. The test pool
 * cannot reach the Worker from itself, so a self-call is played by the test: what the loopback server received
 * from the gateway is sent back to the gateway, as the gateway's own call would arrive.
 */
import { describe, expect, it } from 'vitest';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { forward, origin, settledEnvelope } from '../forward/support';

const loopRefusal = (hops: number) => `The request came through this gateway ${hops} calls deep (x-svc-hop); more than 2 is refused as a loop.`;

/** A ticket whose req calls the loopback echo and answers, with resp, the headers the echo received. */
async function echoingTicket(project: TestProject, ticketId: string) {
  await registerTicket(project, ticketId, {
    actions: [{ act: 'req', exe: { url: `${origin}/echo/${ticketId}`, actions: [{ act: 'resp', exe: { body: '${response[body][headers]}' } }] } }],
  });
}

/** The headers the gateway's call carried to the echo, kept to send back as that call would arrive. */
const sentOn = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name === 'x-svc-hop' || name === 'x-svc-ticket'));

describe('no loops: the hop marker (issue 26 item 5)', () => {
  it('a consumption arriving more than 2 calls deep is refused with INVALID_REQUEST at stage ticket; 2 deep is consumed', async () => {
    const project = await createProject();
    await registerTicket(project, 'plain', { count: 5, actions: [] });
    expect((await call('GET', `/tg/${project.service_id}/plain`, { headers: { 'x-svc-hop': '2' } })).status).toBe(200);
    const refused = await call('GET', `/tg/${project.service_id}/plain`, { headers: { 'x-svc-hop': '3' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ code: 'INVALID_REQUEST', message: loopRefusal(3), stage: 'ticket' });
    expect((await call('GET', `/v1/projects/${project.service_id}/tickets/plain`, { token: project.owner_key })).json.count).toBe(4);
  });

  it('forwarding, secureRequest, the realtime join and the owner routes refuse a request more than 2 calls deep with INVALID_REQUEST 508', async () => {
    const project = await createProject();
    const user = await mintUser(project);
    const deep = { 'x-svc-hop': '3' };
    const answers = [
      await forward(project, { url: `${origin}/echo/deep`, method: 'GET' }, { headers: deep }),
      await call('POST', `/v1/projects/${project.service_id}/secure-request`, { token: user.id_token, body: { url: `${origin}/echo/deep` }, headers: deep }),
      await call('GET', `/v1/projects/${project.service_id}/tickets`, { token: project.owner_key, headers: deep }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(508);
      expect(res.json).toEqual({ code: 'INVALID_REQUEST', message: loopRefusal(3) });
    }
    const refusedJoin = await call('GET', `/v1/projects/${project.service_id}/realtime`, { headers: { ...deep, upgrade: 'websocket' } });
    expect(refusedJoin.status).toBe(508);
  });

  it("a ticket's req carries the marker, one deeper than the consumption that ran it, over any value the ticket could write", async () => {
    const project = await createProject();
    await echoingTicket(project, 'echoing');
    expect((await call('GET', `/tg/${project.service_id}/echoing`)).json['x-svc-hop']).toBe('1');
    expect((await call('GET', `/tg/${project.service_id}/echoing`, { headers: { 'x-svc-hop': '2' } })).json['x-svc-hop']).toBe('3');
    const written = await call('PUT', `/v1/projects/${project.service_id}/tickets/writes-marker`, {
      token: project.owner_key,
      body: { actions: [{ act: 'req', exe: { url: `${origin}/echo`, headers: { 'X-Svc-Hop': '0' } } }] },
    });
    expect(written.status).toBe(400);
    expect(written.json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(written.json.message).toMatch(/X-Svc-Hop header is set by the service/);
  });

  it('a ticket whose req calls the ticket itself is refused at the first call back (X-Svc-Ticket, and the marker)', async () => {
    const project = await createProject();
    await echoingTicket(project, 'self');
    const first = await call('GET', `/tg/${project.service_id}/self`);
    const back = await call('GET', `/tg/${project.service_id}/self`, { headers: sentOn(first.json) });
    expect(back.status).toBe(400);
    expect(back.json).toMatchObject({ code: 'INVALID_REQUEST', stage: 'ticket' });
  });

  it('a ticket whose req forwards to the ticket through the forward route stops at the third call: forward, ticket, forward refused', async () => {
    const project = await createProject();
    await echoingTicket(project, 'relay');
    // Ticket (arrived 0 deep) → its req reaches the forward route 1 deep.
    const ticketCall = (await call('GET', `/tg/${project.service_id}/relay`)).json;
    expect(ticketCall['x-svc-hop']).toBe('1');
    // Forward route → its request reaches the ticket 2 deep (a forwarded request carries no X-Svc-Ticket).
    const forwarded = await forward(project, { url: `${origin}/echo/relay-forward`, method: 'GET' }, { headers: sentOn(ticketCall) });
    expect(forwarded.status).toBe(200);
    const forwardCall = JSON.parse(forwarded.text).headers;
    expect(sentOn(forwardCall)).toEqual({ 'x-svc-hop': '2' });
    // Ticket, 2 deep → its req reaches the forward route 3 deep, which refuses it.
    const secondTicketCall = (await call('GET', `/tg/${project.service_id}/relay`, { headers: sentOn(forwardCall) })).json;
    expect(secondTicketCall['x-svc-hop']).toBe('3');
    const refused = await forward(project, { url: `${origin}/echo/relay-forward`, method: 'GET' }, { headers: sentOn(secondTicketCall) });
    expect(refused.status).toBe(508);
  });

  it('a forward to the forward route itself stops at the third call', async () => {
    const project = await createProject();
    let marker: Record<string, string> = {};
    const statuses: number[] = [];
    for (let hop = 0; hop < 4; hop++) {
      const res = await forward(project, { url: `${origin}/echo/self-forward`, method: 'GET' }, { headers: marker });
      statuses.push(res.status);
      if (res.status !== 200) break;
      marker = sentOn(JSON.parse(res.text).headers);
    }
    expect(statuses).toEqual([200, 200, 200, 508]);
  });

  it('a queued forwarded request and secureRequest carry the marker too', async () => {
    const project = await createProject();
    const user = await mintUser(project);
    const url = `${origin}/echo/queued-marker`;
    const queued = await forward(project, { url, method: 'GET', queue: 'marked' }, { headers: { 'x-svc-hop': '1' } });
    expect(queued.status).toBe(200);
    const settled = await settledEnvelope(project, { id: queued.json.id, url, method: 'GET' });
    expect(settled.response_body.headers['x-svc-hop']).toBe('2');
    const secure = await call('POST', `/v1/projects/${project.service_id}/secure-request`, {
      token: user.id_token,
      body: { url: `${origin}/echo/secure-marker` },
    });
    expect(secure.status).toBe(200);
    expect(secure.json.response.headers['x-svc-hop']).toBe('1');
  });
});
