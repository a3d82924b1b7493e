import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
const READERS = ['ana@example.com', 'bo@example.com', 'cy@example.com'];

beforeAll(async () => {
  project = await createProject();
  const token = project.owner_key;
  await call('PUT', `/v1/projects/${project.service_id}/newsletters/authorized/weekly`, { token, body: { subject: 'Weekly', text: 'for ${email}' } });
  for (const email of READERS) await call('PUT', `/v1/projects/${project.service_id}/subscribers/authorized/${email}`, { token });
  await registerTicket(project, 'publish', { actions: [{ act: 'nlsd', exe: { group: 'authorized', newsletter: 'weekly' } }] });
});

describe('nlsd through a registered ticket', () => {
  it('answers the receipt at once; the work queue then sends the newsletter to every subscriber of the group', async () => {
    const res = await call('POST', `/tp/${project.service_id}/publish`, { body: {} });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['hash', 'tkid']);
    const consumeId = res.json.tkid.split('#')[2];
    const mails = await vi.waitFor(
      async () => {
        const { results } = await env.DB.prepare('SELECT mail_to, text FROM mail_outbox WHERE service_id = ? AND consume_id = ? ORDER BY mail_to')
          .bind(project.service_id, consumeId)
          .all<{ mail_to: string; text: string }>();
        if (results.length < READERS.length) throw new Error(`${results.length} sent so far`);
        return results;
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(mails).toEqual(READERS.map((email) => ({ mail_to: email, text: `for ${email}` })));
    const row = (await ticketStub(env, project.service_id, 'publish').logEntries()).find((e) => e.consume_id === consumeId)?.actions[0];
    const sendId = JSON.parse(row!.detail).sent.send_id;
    const send = await call('GET', `/v1/projects/${project.service_id}/newsletter-sends/${sendId}`, { token: project.owner_key });
    expect(send.json).toMatchObject({ status: 'sent', group: 'authorized', newsletter: 'weekly', delivered: 3, ticket_id: 'publish', consume_id: consumeId });
  });
});
