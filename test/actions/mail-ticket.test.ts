import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;

beforeAll(async () => {
  project = await createProject({ name: 'Bakery' });
  await call('PUT', `/v1/projects/${project.service_id}/mail-templates/welcome`, {
    token: project.owner_key,
    body: { subject: 'Welcome to ${service_name}, ${name}', text: 'Hello ${name} <${email}>' },
  });
  await registerTicket(project, 'signup', {
    actions: [{ act: 'mail', exe: { template: 'welcome', to: '${body[email]}', placeholders: { name: '${body[name]}' } } }],
  });
});

const tp = (body: unknown) => call('POST', `/tp/${project.service_id}/signup`, { body });
const consumeIdOf = (tkid: string) => tkid.split('#')[2];
const actionRow = (consumeId: string) =>
  vi.waitFor(
    async () => {
      const entry = (await ticketStub(env, project.service_id, 'signup').logEntries()).find((e) => e.consume_id === consumeId);
      const row = entry?.actions[0];
      if (!row) throw new Error('action row not logged yet');
      return { act: row.act, detail: JSON.parse(row.detail) };
    },
    { timeout: 5_000, interval: 100 },
  );

describe('mail through a registered ticket', () => {
  it('a consumption sends the template to the address in the body, answers the receipt, and logs what was sent', async () => {
    const to = `${crypto.randomUUID()}@example.com`;
    const res = await tp({ email: to, name: 'Ana' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['hash', 'tkid']);
    const consumeId = consumeIdOf(res.json.tkid);
    const mail = await env.DB.prepare('SELECT * FROM mail_outbox WHERE service_id = ? AND mail_to = ?')
      .bind(project.service_id, to)
      .first<Record<string, unknown>>();
    expect(mail).toMatchObject({ subject: 'Welcome to Bakery, Ana', text: `Hello Ana <${to}>`, ticket_id: 'signup', consume_id: consumeId });
    const row = await actionRow(consumeId);
    expect(row).toMatchObject({
      act: 'mail',
      detail: { sent: { template: 'welcome', to, transport: 'outbox' }, received: 'SUCCESS: The e-mail has been sent.' },
    });
  });

  it('an address that is invalid after templating fails the consumption with ACTION_FAILED at the mail action', async () => {
    const res = await tp({ email: 'nobody', name: 'X' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'ACTION_FAILED', stage: 'action', action: { act: 'mail', path: 'actions[0]' }, detail: { field: 'to' } });
  });
});
