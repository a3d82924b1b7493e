import { env } from 'cloudflare:workers';
import { ticketLog, writeLogRow } from '../logs/log-helpers';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { NEWSLETTER_QUEUED, nlsdAction } from '../../src/actions/nlsd';
import type { ActionResult } from '../../src/actions/types';
import { type BatchMessage, NEWSLETTER_BATCH_KIND, sendNewsletterBatchJob } from '../../src/mail/newsletter-jobs';
import { newsletterMailKey } from '../../src/mail/newsletter-batches';
import { claimBatch, createSend, loadSend } from '../../src/mail/newsletter-sends';
import { OutboxTransport } from '../../src/mail/outbox-transport';
import { mailUsage, usageMonth } from '../../src/mail/usage';
import { call, createProject, type TestProject } from '../helpers/api';
import { failingDb } from './failing-db';
import { type HandBuiltOptions, handBuiltRun } from './hand-built-run';

let project: TestProject;
const MEMBERS = Array.from({ length: 250 }, (_, i) => `member${String(i).padStart(3, '0')}@example.com`);

async function subscribe(group: string, addresses: string[]) {
  const statements = addresses.map((email) =>
    env.DB.prepare('INSERT INTO subscribers (service_id, grp, email, created) VALUES (?, ?, ?, ?)').bind(project.service_id, group, email, Date.now()),
  );
  await env.DB.batch(statements);
}

beforeAll(async () => {
  project = await createProject({ name: 'Club' });
  const put = (group: string, id: string, body: unknown) =>
    call('PUT', `/v1/projects/${project.service_id}/newsletters/${group}/${id}`, { token: project.owner_key, body });
  await put('members', 'spring', { subject: 'Spring at ${service_name}', html: '<p>Dear ${email}</p>', text: 'Dear ${email}' });
  await put('5', 'empty-news', { subject: 'Nobody reads this' });
  await subscribe('members', MEMBERS);
});

const nlsd = (exe: Record<string, unknown>, options?: HandBuiltOptions): Promise<ActionResult> =>
  nlsdAction.run(handBuiltRun(project, { act: 'nlsd', exe } as TicketAction, options));

function sendIdOf(result: ActionResult): string {
  const sendId = (result.row?.sent as { send_id?: string } | undefined)?.send_id;
  if (!result.ok || !sendId) throw new Error(`nlsd failed: ${JSON.stringify(result)}`);
  return sendId;
}

const outboxOf = async (sendId: string) =>
  (
    await env.DB.prepare('SELECT mail_to, subject, html, text, message_key FROM mail_outbox WHERE service_id = ? AND send_id = ? ORDER BY mail_to')
      .bind(project.service_id, sendId)
      .all<Record<string, string>>()
  ).results;

const sendOf = (sendId: string) => call('GET', `/v1/projects/${project.service_id}/newsletter-sends/${sendId}`, { token: project.owner_key });

async function finishedSend(sendId: string) {
  return vi.waitFor(
    async () => {
      const res = await sendOf(sendId);
      if (res.json?.status !== 'sent') throw new Error(`send ${sendId} is ${res.json?.status}`);
      return res.json;
    },
    { timeout: 20_000, interval: 200 },
  );
}

describe('nlsd sends a newsletter to every subscriber of a group, in batches through the work queue', () => {
  it('answers SUCCESS at once; the queue then sends each subscriber the newsletter once, in batches of 100', async () => {
    const month = usageMonth(Date.now());
    const before = (await mailUsage(env.DB, project.service_id, month)).newsletter_mails;
    const result = await nlsd({ group: 'members', newsletter: 'spring' });
    expect(result).toMatchObject({ ok: true, answer: NEWSLETTER_QUEUED });
    const sendId = sendIdOf(result);
    expect(await loadSend(env.DB, project.service_id, sendId)).toMatchObject({ group_key: 'members', message_id: 'spring', planned_batches: null });

    const done = await finishedSend(sendId);
    expect(done).toMatchObject({ group: 'members', newsletter: 'spring', planned_batches: 3, delivered: 250, refused: 0 });
    expect(done.batches.map((batch: { batch: number; recipients: number }) => [batch.batch, batch.recipients])).toEqual([
      [0, 100],
      [1, 100],
      [2, 50],
    ]);
    const mails = await outboxOf(sendId);
    expect(mails.map((mail) => mail.mail_to)).toEqual(MEMBERS);
    expect(mails[7]).toMatchObject({ subject: 'Spring at Club', html: `<p>Dear ${MEMBERS[7]}</p>`, text: `Dear ${MEMBERS[7]}` });
    expect((await mailUsage(env.DB, project.service_id, month)).newsletter_mails).toBe(before + 250);
  });

  it('a redelivered batch message sends nothing twice and counts nothing again', async () => {
    const result = await nlsd({ group: 'members', newsletter: 'spring' });
    const sendId = sendIdOf(result);
    await finishedSend(sendId);
    const month = usageMonth(Date.now());
    const counted = (await mailUsage(env.DB, project.service_id, month)).newsletter_mails;
    await sendNewsletterBatchJob(
      { kind: NEWSLETTER_BATCH_KIND, service_id: project.service_id, send_id: sendId, batch: 2, recipients: MEMBERS.slice(200) },
      env,
    );
    expect(await outboxOf(sendId)).toHaveLength(250);
    expect((await mailUsage(env.DB, project.service_id, month)).newsletter_mails).toBe(counted);
  });

  it('the same nlsd action of the same consumption run again (a retry) makes one send', async () => {
    const options = { consumeId: `nlsdretry${Date.now()}`, path: 'actions[1]' };
    const first = await nlsd({ group: 'members', newsletter: 'spring' }, options);
    const second = await nlsd({ group: 'members', newsletter: 'spring' }, options);
    const sendId = sendIdOf(first);
    expect(sendIdOf(second)).toBe(sendId);
    await finishedSend(sendId);
    // Both runs queued a planning step; the second one's batches were already sent.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await outboxOf(sendId)).toHaveLength(250);
  });

  it('a group without subscribers is sent at once, to nobody', async () => {
    const result = await nlsd({ group: 5, newsletter: 'empty-news' });
    const sendId = sendIdOf(result);
    expect(await finishedSend(sendId)).toMatchObject({ group: 5, planned_batches: 0, delivered: 0, batches: [] });
  });

  it('a newsletter no longer stored, or a group that is not one, fails with ACTION_FAILED', async () => {
    expect(await nlsd({ group: 'members', newsletter: 'nope' })).toMatchObject({ ok: false, failure: { code: 'ACTION_FAILED' } });
    expect(await nlsd({ group: 1, newsletter: 'spring' })).toMatchObject({ ok: false, failure: { code: 'ACTION_FAILED', detail: { field: 'group' } } });
  });
});

describe('newsletter batch jobs', () => {
  let sequence = 0;
  /** A send stored as the nlsd action stores it, without queuing it (these tests run the batch job themselves). */
  async function storedSend(extra: { ticket_id?: string; consume_id?: string; action_path?: string } = {}) {
    const sendId = `test-send-${Date.now()}-${sequence++}`;
    await createSend(env.DB, project.service_id, {
      send_id: sendId,
      group_key: 'members',
      message_id: 'spring',
      from: 'Club <no-reply@localhost>',
      subject: 'S',
      html: '<p>${email}</p>',
      text: '${email}',
      service_name: 'Club',
      ticket_id: extra.ticket_id ?? null,
      consume_id: extra.consume_id ?? null,
      action_path: extra.action_path ?? null,
      created: Date.now(),
    });
    return sendId;
  }
  const batchMessage = (sendId: string, recipients: string[]): BatchMessage => ({
    kind: NEWSLETTER_BATCH_KIND,
    service_id: project.service_id,
    send_id: sendId,
    batch: 0,
    recipients,
  });
  const batchRow = (sendId: string) =>
    env.DB.prepare('SELECT status, delivered, warning FROM newsletter_batches WHERE service_id = ? AND send_id = ? AND batch = 0')
      .bind(project.service_id, sendId)
      .first<{ status: string; delivered: number; warning: string | null }>();

  it('a batch sent again after a crash in the middle delivers only the mails that had not gone out', async () => {
    const sendId = await storedSend();
    const recipients = MEMBERS.slice(0, 10);
    await claimBatch(env.DB, project.service_id, sendId, 0, recipients.length, Date.now());
    const outbox = new OutboxTransport(env.DB);
    for (const to of recipients.slice(0, 4)) {
      await outbox.send(
        { from: 'x', to, subject: 'S', html: '', text: '' },
        { service_id: project.service_id, key: newsletterMailKey(sendId, to), kind: 'newsletter', send_id: sendId },
      );
    }
    await sendNewsletterBatchJob(batchMessage(sendId, recipients), env);
    expect((await outboxOf(sendId)).map((mail) => mail.mail_to)).toEqual(recipients);
    expect(await batchRow(sendId)).toMatchObject({ status: 'sent', delivered: 10 });
  });

  it('a provider failure that may pass fails the message (the queue delivers it again) and leaves the batch unsent', async () => {
    const sendId = await storedSend();
    const providerDown = { ...env, MAIL_PROVIDER_URL: `${inject('loopbackOrigin')}/status/503`, MAIL_PROVIDER_TOKEN: 'test-mail-token' };
    await expect(sendNewsletterBatchJob(batchMessage(sendId, MEMBERS.slice(0, 3)), providerDown)).rejects.toThrow(/503/);
    expect(await batchRow(sendId)).toMatchObject({ status: 'sending' });
  });

  it('through the HTTP provider, each mail carries the key newsletter:<send_id>:<address> as Idempotency-Key', async () => {
    const sendId = await storedSend();
    const origin = inject('loopbackOrigin');
    const provider = { ...env, MAIL_PROVIDER_URL: `${origin}/mail/emails`, MAIL_PROVIDER_TOKEN: 'test-mail-token' };
    await sendNewsletterBatchJob(batchMessage(sendId, [MEMBERS[0]]), provider);
    const inbox = await (await fetch(`${origin}/mail/inbox?to=${encodeURIComponent(MEMBERS[0])}`)).json<any[]>();
    expect(inbox.find((kept) => kept.key === newsletterMailKey(sendId, MEMBERS[0]))?.mail).toMatchObject({ subject: 'S', text: MEMBERS[0] });
  });

  it('a batch that went out but could not be marked sent carries a warning on the batch, the send and the action row', async () => {
    const consumeId = `warn${Date.now()}`;
    const sendId = await storedSend({ ticket_id: 'news-ticket', consume_id: consumeId, action_path: 'actions[0]' });
    await writeLogRow(project.service_id, 'news-ticket', consumeId, Date.now(), {}, [{ seq: 0, path: 'actions[0]', act: 'nlsd', detail: { attempts: 1 } }]);
    const broken = { ...env, DB: failingDb(env.DB, /SET status = 'sent'/) };
    await sendNewsletterBatchJob(batchMessage(sendId, MEMBERS.slice(0, 2)), broken);
    expect(await outboxOf(sendId)).toHaveLength(2);
    expect((await batchRow(sendId))?.warning).toBe('the mail went out but the batch could not be marked sent');
    expect((await sendOf(sendId)).json.warning).toBe('batch 0: the mail went out but the batch could not be marked sent');
    const [logged] = await ticketLog(project.service_id, 'news-ticket');
    expect(JSON.parse(logged.actions[0].detail).warning).toBe('Newsletter batch 0: the mail went out but the batch could not be marked sent');
  });

  it('a batch that went out but could not be counted is marked sent and carries a warning', async () => {
    const sendId = await storedSend();
    await sendNewsletterBatchJob(batchMessage(sendId, MEMBERS.slice(0, 2)), { ...env, DB: failingDb(env.DB, /INSERT INTO mail_usage/) });
    expect(await batchRow(sendId)).toMatchObject({ status: 'sent', warning: '2 mails went out but could not be counted' });
  });
});
