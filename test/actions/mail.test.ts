import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { MAIL_SENT, mailAction } from '../../src/actions/mail';
import type { ActionResult } from '../../src/actions/types';
import { mailUsage, usageMonth } from '../../src/mail/usage';
import { call, createProject, type TestProject } from '../helpers/api';
import { failingDb } from './failing-db';
import { type HandBuiltOptions, handBuiltRun } from './hand-built-run';

let project: TestProject;

beforeAll(async () => {
  project = await createProject({ name: 'Corner Shop' });
  const put = (id: string, body: unknown) => call('PUT', `/v1/projects/${project.service_id}/mail-templates/${id}`, { token: project.owner_key, body });
  await put('receipt', {
    subject: 'Your order ${order} at ${service_name}',
    html: '<p>Hello ${email}, you bought ${item}.</p>',
    text: 'Hello ${email}, you bought ${item}. Write $${item} to quote.',
  });
  await put('plain', { subject: 'Hi', text: 'to ${email} from ${service_name}' });
});

const mail = (exe: Record<string, unknown>, options?: HandBuiltOptions): Promise<ActionResult> =>
  mailAction.run(handBuiltRun(project, { act: 'mail', exe } as TicketAction, options));

const outboxTo = async (to: string) =>
  (
    await env.DB.prepare('SELECT * FROM mail_outbox WHERE service_id = ? AND mail_to = ? ORDER BY created')
      .bind(project.service_id, to)
      .all<Record<string, any>>()
  ).results;

const address = () => `${crypto.randomUUID()}@example.com`;

describe('mail sends a stored template to one address', () => {
  it('fills ${...} placeholders from the templated exe, service_name and email by default, and answers SUCCESS', async () => {
    const to = address();
    const before = await mailUsage(env.DB, project.service_id, usageMonth(Date.now()));
    const result = await mail(
      { template: 'receipt', to: '${body[email]}', placeholders: { order: '${body[order]}', item: '${body[item]}' } },
      { body: { email: to, order: 1001, item: '<Socks & Shoes>' } },
    );
    expect(result).toMatchObject({ ok: true, answer: MAIL_SENT, row: { sent: { template: 'receipt', to, transport: 'outbox' } } });
    const [stored] = await outboxTo(to);
    expect(stored).toMatchObject({
      kind: 'mail',
      mail_from: 'Corner Shop <no-reply@localhost>',
      subject: 'Your order 1001 at Corner Shop',
      html: `<p>Hello ${to}, you bought &lt;Socks &amp; Shoes&gt;.</p>`,
      text: `Hello ${to}, you bought <Socks & Shoes>. Write \${item} to quote.`,
      ticket_id: 'hand-built',
    });
    expect((await mailUsage(env.DB, project.service_id, usageMonth(Date.now()))).mails).toBe(before.mails + 1);
  });

  it('service_name and email may be overwritten by placeholders', async () => {
    const to = address();
    await mail({ template: 'plain', to, placeholders: { service_name: 'Other', email: 'someone' } });
    expect((await outboxTo(to))[0].text).toBe('to someone from Other');
  });

  it('an address that is not one e-mail address after templating fails with ACTION_FAILED and sends nothing', async () => {
    for (const value of ['not-an-address', 'a@b.co, c@d.co', 42]) {
      const result = await mail({ template: 'plain', to: '${body[email]}' }, { body: { email: value } });
      expect(result).toMatchObject({ ok: false, failure: { code: 'ACTION_FAILED', detail: { field: 'to' } } });
    }
    expect(await outboxTo('not-an-address')).toHaveLength(0);
  });

  it('a placeholder that templates to an object fails with ACTION_FAILED naming it', async () => {
    const result = await mail({ template: 'plain', to: address(), placeholders: { item: '${body}' } }, { body: { a: 1 } });
    expect(result).toMatchObject({ ok: false, failure: { code: 'ACTION_FAILED', detail: { field: 'placeholders.item' } } });
  });

  it('a template deleted since registration fails with ACTION_FAILED', async () => {
    await call('PUT', `/v1/projects/${project.service_id}/mail-templates/gone`, { token: project.owner_key, body: { subject: 's' } });
    await call('DELETE', `/v1/projects/${project.service_id}/mail-templates/gone`, { token: project.owner_key });
    const result = await mail({ template: 'gone', to: address() });
    expect(result).toMatchObject({ ok: false, failure: { code: 'ACTION_FAILED', detail: { template: 'gone' } } });
  });

  it('the same action of the same consumption run again (a retry) delivers and counts the mail once', async () => {
    const to = address();
    const options = { consumeId: `retry${Date.now()}`, path: 'actions[2]' };
    const month = usageMonth(Date.now());
    const before = (await mailUsage(env.DB, project.service_id, month)).mails;
    expect((await mail({ template: 'plain', to }, options)).ok).toBe(true);
    expect((await mail({ template: 'plain', to }, options)).ok).toBe(true);
    expect(await outboxTo(to)).toHaveLength(1);
    expect((await mailUsage(env.DB, project.service_id, month)).mails).toBe(before + 1);
  });

  it('a mail that went out but could not be counted answers SUCCESS and carries a warning on its action row', async () => {
    const to = address();
    const result = await mail({ template: 'plain', to }, { env: { ...env, DB: failingDb(env.DB, /INSERT INTO mail_usage/) } });
    expect(result).toMatchObject({ ok: true, answer: MAIL_SENT, row: { warning: 'The e-mail was sent but could not be counted.' } });
    expect(await outboxTo(to)).toHaveLength(1);
  });
});

describe('mail through the HTTP e-mail provider (MAIL_PROVIDER_URL)', () => {
  const origin = inject('loopbackOrigin');
  const providerEnv = (token: string) => ({ ...env, MAIL_PROVIDER_URL: `${origin}/mail/emails`, MAIL_PROVIDER_TOKEN: token, MAIL_FROM: 'shop@mail.test' });

  it('posts the composed mail to the provider instead of the outbox', async () => {
    const to = address();
    const result = await mail({ template: 'plain', to }, { env: providerEnv('test-mail-token') });
    expect(result).toMatchObject({ ok: true, answer: MAIL_SENT, row: { sent: { transport: 'http', message_id: expect.stringMatching(/^mail-/) } } });
    const inbox = await (await fetch(`${origin}/mail/inbox?to=${encodeURIComponent(to)}`)).json<any[]>();
    expect(inbox.map((kept) => kept.mail)).toEqual([{ from: 'Corner Shop <shop@mail.test>', to, subject: 'Hi', html: '', text: `to ${to} from Corner Shop` }]);
    expect(await outboxTo(to)).toHaveLength(0);
  });

  it('a provider that refuses the mail fails the action with ACTION_FAILED and its status', async () => {
    const result = await mail({ template: 'plain', to: address() }, { env: providerEnv('wrong-token') });
    expect(result).toMatchObject({ ok: false, failure: { code: 'ACTION_FAILED', detail: { transport: 'http', status: 401 } } });
  });
});

describe('owner mail outbox route', () => {
  it('lists the outbox newest first, filters by address, pages by startKey; owner key only', async () => {
    const to = address();
    for (let i = 0; i < 3; i++) await mail({ template: 'plain', to }, { now: Date.now() + i });
    const base = `/v1/projects/${project.service_id}/mail-outbox`;
    const first = await call('GET', `${base}?to=${encodeURIComponent(to)}&limit=2`, { token: project.owner_key });
    expect(first.status).toBe(200);
    expect(first.json.list).toHaveLength(2);
    expect(first.json.list[0]).toMatchObject({ to, from: 'Corner Shop <no-reply@localhost>', kind: 'mail', subject: 'Hi' });
    expect(first.json.list[0].created).toBeGreaterThan(first.json.list[1].created);
    expect(first.json.endOfList).toBe(false);
    const second = await call('GET', `${base}?to=${encodeURIComponent(to)}&limit=2&startKey=${first.json.startKey}`, { token: project.owner_key });
    expect([second.json.list.length, second.json.endOfList]).toEqual([1, true]);
    expect((await call('GET', base)).status).toBe(401);
  });
});
