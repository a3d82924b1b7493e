/** Where mail bodies live: R2 for bodies over 1 KiB, their D1 row keeping the index; the owner's outbox lists them as before. */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { mailAction } from '../../src/actions/mail';
import type { Env, WorkMessage } from '../../src/env';
import { INLINE_BODY_BYTES, keyDay } from '../../src/mail/bodies';
import { runMailCleanup } from '../../src/mail/cleanup';
import { type BatchMessage, firstPlanMessage, planNewsletterJob, sendNewsletterBatchJob } from '../../src/mail/newsletter-jobs';
import { createSend } from '../../src/mail/newsletter-sends';
import { MAIL_LIFETIME_MS } from '../../src/mail/lifetime';
import { failingDb } from '../actions/failing-db';
import { handBuiltRun } from '../actions/hand-built-run';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { bodyKeysOf, failingBucket, outboxRows } from './helpers';

const DAY = 86_400_000;
const CAP = 262_144;
let project: TestProject;
const READERS = ['ann@example.com', 'bob@example.com', 'cyd@example.com'];
/** Bodies well over INLINE_BODY_BYTES, with placeholders filled per mail. */
const BIG_HTML = `<h1>Hello \${email}</h1>${'<p>Fresh bread & rolls, every morning.</p>'.repeat(60)}`;
const BIG_TEXT = `Hello \${email}\n${'Fresh bread and rolls, every morning.\n'.repeat(40)}`;
/** The template as composed for `email` (the addresses here hold no character HTML escapes). */
const filled = (template: string, email: string) => template.replaceAll('${email}', email);

beforeAll(async () => {
  project = await createProject({ name: 'Bakery' });
  const token = project.owner_key;
  const sid = project.service_id;
  await call('PUT', `/v1/projects/${sid}/mail-templates/big`, { token, body: { subject: 'Welcome ${email}', html: BIG_HTML, text: BIG_TEXT } });
  await call('PUT', `/v1/projects/${sid}/mail-templates/small`, { token, body: { subject: 'Hi', text: 'Hi ${email}' } });
  // At the cap: 262,144 characters of html (most of them 3-byte UTF-8) and of text; the request stays under 1 MiB.
  const capped = await call('PUT', `/v1/projects/${sid}/mail-templates/capped`, {
    token,
    body: { subject: 'Cap', html: '€'.repeat(200_000) + 'h'.repeat(CAP - 200_000), text: 't'.repeat(CAP) },
  });
  expect(capped.status).toBe(200);
  await call('PUT', `/v1/projects/${sid}/newsletters/readers/weekly`, { token, body: { subject: 'Weekly for ${email}', html: BIG_HTML, text: BIG_TEXT } });
  for (const email of READERS) await call('PUT', `/v1/projects/${sid}/subscribers/readers/${email}`, { token });
  for (const template of ['big', 'small', 'capped']) {
    await registerTicket(project, `send-${template}`, { actions: [{ act: 'mail', exe: { template, to: '${body[email]}' } }] });
  }
  await registerTicket(project, 'publish', { actions: [{ act: 'nlsd', exe: { group: 'readers', newsletter: 'weekly' } }] });
});

const address = () => `${crypto.randomUUID()}@example.com`;
const consume = async (ticket: string, body: unknown) => {
  const res = await call('POST', `/tp/${project.service_id}/${ticket}`, { body });
  expect(res.status).toBe(200);
  return res.json.tkid.split('#')[2] as string;
};
const listed = async (to: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/mail-outbox?to=${encodeURIComponent(to)}`, { token: project.owner_key })).json.list;
const mail = (exe: Record<string, unknown>, options: Parameters<typeof handBuiltRun>[2]) =>
  mailAction.run(handBuiltRun(project, { act: 'mail', exe } as TicketAction, options));

describe('mail bodies over 1 KiB live in R2, the D1 row keeps the index', () => {
  it('a mail body over 1 KiB leaves its D1 row for one R2 object, and the outbox lists it exactly as composed', async () => {
    const to = address();
    const consumeId = await consume('send-big', { email: to });
    const [row] = await outboxRows(project.service_id, 'mail_to = ?', to);
    const html = filled(BIG_HTML, to);
    const text = filled(BIG_TEXT, to);
    expect(row).toMatchObject({ html: '', text: '', body_bytes: new TextEncoder().encode(html + text).byteLength, expires: row.created + MAIL_LIFETIME_MS });
    expect(row.body_key).toBe(`mail/${keyDay(row.expires)}/${project.service_id}/${row.body_key.split('/')[3]}`);
    expect(await (await env.BODIES.get(row.body_key))!.json()).toEqual({ html, text });
    expect(await listed(to)).toEqual([
      {
        message_key: `mail:${consumeId}:actions[0]`,
        kind: 'mail',
        from: 'Bakery <no-reply@localhost>',
        to,
        subject: `Welcome ${to}`,
        html,
        text,
        ticket_id: 'send-big',
        consume_id: consumeId,
        send_id: null,
        created: row.created,
      },
    ]);
  });

  it('a body of at most 1 KiB stays inline in its row, with no R2 object', async () => {
    const to = address();
    const before = (await bodyKeysOf(project.service_id)).length;
    await consume('send-small', { email: to });
    const [row] = await outboxRows(project.service_id, 'mail_to = ?', to);
    expect(row).toMatchObject({ text: `Hi ${to}`, body_key: null });
    expect(row.body_bytes).toBeLessThanOrEqual(INLINE_BODY_BYTES);
    expect((await bodyKeysOf(project.service_id)).length).toBe(before);
  });

  it('a mail body at its cap (262,144 characters of html and of text) stores and reads back whole', async () => {
    const to = address();
    await consume('send-capped', { email: to });
    const [item] = await listed(to);
    expect(item.html).toBe('€'.repeat(200_000) + 'h'.repeat(CAP - 200_000));
    expect(item.text).toBe('t'.repeat(CAP));
  });

  it("a newsletter's mails share the send's one body object (none per recipient), and the listing fills each with its address", async () => {
    const before = new Set(await bodyKeysOf(project.service_id));
    const consumeId = await consume('publish', {});
    const rows = await vi.waitFor(
      async () => {
        const found = await outboxRows(project.service_id, 'consume_id = ?', consumeId);
        if (found.length < READERS.length) throw new Error(`${found.length} sent so far`);
        return found;
      },
      { timeout: 20_000, interval: 200 },
    );
    const added = (await bodyKeysOf(project.service_id)).filter((key) => !before.has(key));
    expect(added).toHaveLength(1);
    expect(rows.map((row) => [row.body_key, row.html, row.text])).toEqual(READERS.map(() => [added[0], '', '']));
    const send = await env.DB.prepare('SELECT html, text, body_key, expires, created FROM newsletter_sends WHERE service_id = ? AND send_id = ?')
      .bind(project.service_id, rows[0].send_id)
      .first<Record<string, any>>();
    expect(send).toMatchObject({ html: '', text: '', body_key: added[0], expires: send!.created + MAIL_LIFETIME_MS });
    expect(rows.every((row) => row.expires === send!.expires)).toBe(true);
    for (const to of READERS) {
      const [item] = await listed(to);
      expect(item).toMatchObject({
        kind: 'newsletter',
        subject: `Weekly for ${to}`,
        html: filled(BIG_HTML, to),
        text: filled(BIG_TEXT, to),
        send_id: rows[0].send_id,
      });
    }
  });

  it('a row written before migration 0014 (body inline, no expiry) is listed exactly as before, and leaves 30 days after it was created', async () => {
    const to = address();
    const oldWay = (key: string, created: number) =>
      env.DB.prepare(
        `INSERT INTO mail_outbox (service_id, message_key, kind, mail_from, mail_to, subject, html, text, ticket_id, consume_id, send_id, created)
         VALUES (?, ?, 'mail', 'Bakery <no-reply@localhost>', ?, 'Old', ?, ?, 't', 'c', NULL, ?) ON CONFLICT DO NOTHING`,
      ).bind(project.service_id, key, to, BIG_HTML, BIG_TEXT, created);
    const now = Date.now();
    await env.DB.batch([oldWay('mail:recent', now - DAY), oldWay('mail:stale', now - MAIL_LIFETIME_MS - 1)]);
    expect(await listed(to)).toEqual([
      {
        message_key: 'mail:recent',
        kind: 'mail',
        from: 'Bakery <no-reply@localhost>',
        to,
        subject: 'Old',
        html: BIG_HTML,
        text: BIG_TEXT,
        ticket_id: 't',
        consume_id: 'c',
        send_id: null,
        created: now - DAY,
      },
    ]);
    await runMailCleanup(env, now);
    expect((await outboxRows(project.service_id, 'mail_to = ?', to)).map((row) => row.message_key)).toEqual(['mail:recent']);
  });
});

describe('failures while storing a body lose no mail that answered success and leave nothing cleanup never removes', () => {
  it('an R2 failure while storing a body fails the mail and stores no row; the retry then sends it once', async () => {
    const to = address();
    const options = { consumeId: `r2fail${Date.now()}`, body: { email: to } };
    const broken = { ...env, BODIES: failingBucket(env.BODIES, ['put']) } as Env;
    await expect(mail({ template: 'big', to: '${body[email]}' }, { ...options, env: broken })).rejects.toThrow(/R2 is unavailable/);
    expect(await outboxRows(project.service_id, 'mail_to = ?', to)).toHaveLength(0);
    expect(await mail({ template: 'big', to: '${body[email]}' }, options)).toMatchObject({ ok: true });
    expect(await mail({ template: 'big', to: '${body[email]}' }, options)).toMatchObject({ ok: true });
    const [item, ...more] = await listed(to);
    expect(more).toHaveLength(0);
    expect(item.text).toBe(filled(BIG_TEXT, to));
  });

  it('a retried mail whose row already exists leaves no second body behind', async () => {
    const to = address();
    const options = { consumeId: `dup${Date.now()}`, body: { email: to } };
    await mail({ template: 'big', to: '${body[email]}' }, options);
    const after = (await bodyKeysOf(project.service_id)).length;
    await mail({ template: 'big', to: '${body[email]}' }, options);
    expect((await bodyKeysOf(project.service_id)).length).toBe(after);
  });

  it('through the HTTP provider nothing of a mail body is stored', async () => {
    const to = address();
    const before = (await bodyKeysOf(project.service_id)).length;
    const provider = { ...env, MAIL_PROVIDER_URL: `${inject('loopbackOrigin')}/mail/emails`, MAIL_PROVIDER_TOKEN: 'test-mail-token' } as Env;
    expect(await mail({ template: 'big', to }, { env: provider })).toMatchObject({ ok: true, row: { sent: { transport: 'http' } } });
    expect(await outboxRows(project.service_id, 'mail_to = ?', to)).toHaveLength(0);
    expect((await bodyKeysOf(project.service_id)).length).toBe(before);
  });

  it('a newsletter sent through the HTTP provider leaves no snapshot once every batch is sent', async () => {
    const origin = inject('loopbackOrigin');
    const sendId = `http-send-${Date.now()}`;
    await createSend(
      env.DB,
      project.service_id,
      {
        send_id: sendId,
        group_key: 'readers',
        message_id: 'weekly',
        from: 'Bakery <no-reply@localhost>',
        subject: 'Weekly',
        html: BIG_HTML,
        text: BIG_TEXT,
        service_name: 'Bakery',
        ticket_id: null,
        consume_id: null,
        action_path: null,
        created: Date.now(),
      },
      env.BODIES,
    );
    const snapshot = () =>
      env.DB.prepare('SELECT html, text, body_key FROM newsletter_sends WHERE service_id = ? AND send_id = ?')
        .bind(project.service_id, sendId)
        .first<Record<string, any>>();
    const key = (await snapshot())!.body_key as string;
    expect(await env.BODIES.head(key)).not.toBeNull();

    const batches: WorkMessage[] = [];
    const recorder = {
      send: async () => {},
      sendBatch: async (messages: Iterable<{ body: WorkMessage }>) => void batches.push(...[...messages].map((m) => m.body)),
    } as unknown as Queue<WorkMessage>;
    const provider = {
      ...env,
      MAIL_PROVIDER_URL: `${origin}/mail/emails`,
      MAIL_PROVIDER_TOKEN: 'test-mail-token',
      NEWSLETTER_QUEUE: recorder,
      WORK_QUEUE: recorder,
    } as Env;
    await planNewsletterJob(firstPlanMessage(project.service_id, sendId), provider);
    expect(batches).toHaveLength(1);
    expect(await env.BODIES.head(key)).not.toBeNull();
    await sendNewsletterBatchJob(batches[0] as BatchMessage, provider);

    expect(await snapshot()).toEqual({ html: '', text: '', body_key: null });
    expect(await env.BODIES.head(key)).toBeNull();
    const inbox = await (await fetch(`${origin}/mail/inbox?to=${encodeURIComponent(READERS[1])}`)).json<any[]>();
    expect(inbox.find((kept) => kept.key === `newsletter:${sendId}:${READERS[1]}`)?.mail.html).toBe(filled(BIG_HTML, READERS[1]));
  });

  // Last: its cleanup runs 31 days ahead, past every row this file wrote.
  it('a D1 failure after the body was stored fails the mail; the orphan body leaves with its expiry day', async () => {
    const to = address();
    const before = new Set(await bodyKeysOf(project.service_id));
    const broken = { ...env, DB: failingDb(env.DB, /INSERT INTO mail_outbox/) } as Env;
    await expect(mail({ template: 'big', to }, { env: broken })).rejects.toThrow(/D1 is unavailable/);
    const orphans = (await bodyKeysOf(project.service_id)).filter((key) => !before.has(key));
    expect(orphans).toHaveLength(1);
    await runMailCleanup(env, Date.now() + MAIL_LIFETIME_MS + DAY);
    expect(await env.BODIES.head(orphans[0])).toBeNull();
    expect(await bodyKeysOf(project.service_id)).toEqual([]);
  });
});
