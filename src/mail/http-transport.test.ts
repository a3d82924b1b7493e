import { inject, describe, expect, it } from 'vitest';
import { HttpTransport } from './http-transport';
import type { MailEnvelope, OutgoingMail } from './transport';

const origin = inject('loopbackOrigin');
const TOKEN = 'test-mail-token';
const mail = (to: string): OutgoingMail => ({ from: 'Shop <no-reply@shop.test>', to, subject: 'Hello', html: '<p>Hi</p>', text: 'Hi' });
const envelope = (key: string): MailEnvelope => ({ service_id: 's', key, kind: 'mail' });
const inbox = async (to: string) => (await fetch(`${origin}/mail/inbox?to=${encodeURIComponent(to)}`)).json<any[]>();

describe('HTTP mail provider adapter (against the loopback provider)', () => {
  it('POSTs { from, to, subject, html, text } with the bearer token and Idempotency-Key, and answers the provider id', async () => {
    const to = `${crypto.randomUUID()}@example.com`;
    const outcome = await new HttpTransport(`${origin}/mail/emails`, TOKEN).send(mail(to), envelope(`mail:${to}`));
    expect(outcome).toEqual({ ok: true, id: expect.stringMatching(/^mail-\d+$/), duplicate: false });
    const kept = await inbox(to);
    expect(kept).toHaveLength(1);
    expect(kept[0].key).toBe(`mail:${to}`);
    expect(kept[0].mail).toEqual({ from: 'Shop <no-reply@shop.test>', to, subject: 'Hello', html: '<p>Hi</p>', text: 'Hi' });
  });

  it('sending the same key again delivers nothing new (the provider honours Idempotency-Key)', async () => {
    const to = `${crypto.randomUUID()}@example.com`;
    const transport = new HttpTransport(`${origin}/mail/emails`, TOKEN);
    const first = await transport.send(mail(to), envelope(`k:${to}`));
    const second = await transport.send(mail(to), envelope(`k:${to}`));
    expect(second.ok && first.ok && second.id === first.id).toBe(true);
    expect(await inbox(to)).toHaveLength(1);
  });

  it('a key longer than 256 characters is sent as its SHA-256', async () => {
    const to = `${crypto.randomUUID()}@example.com`;
    await new HttpTransport(`${origin}/mail/emails`, TOKEN).send(mail(to), envelope('k'.repeat(300)));
    expect((await inbox(to))[0].key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a refused token (401) is a permanent failure; 500 and 429 may pass on a later try', async () => {
    expect(await new HttpTransport(`${origin}/mail/emails`, 'wrong').send(mail('a@b.co'), envelope('x'))).toMatchObject({
      ok: false,
      permanent: true,
      status: 401,
    });
    expect(await new HttpTransport(`${origin}/status/500`, TOKEN).send(mail('a@b.co'), envelope('x'))).toMatchObject({
      ok: false,
      permanent: false,
      status: 500,
    });
    expect(await new HttpTransport(`${origin}/status/429`, TOKEN).send(mail('a@b.co'), envelope('x'))).toMatchObject({
      ok: false,
      permanent: false,
      status: 429,
    });
  });

  it('a provider that does not answer in time is a failure that may pass later', async () => {
    const stalled = await new HttpTransport(`${origin}/stall`, TOKEN, undefined, () => 300).send(mail('a@b.co'), envelope('x'));
    expect(stalled).toMatchObject({ ok: false, permanent: false, reason: 'The mail provider did not answer in time.' });
  });

  it('without MAIL_PROVIDER_TOKEN nothing is sent', async () => {
    const to = `${crypto.randomUUID()}@example.com`;
    const outcome = await new HttpTransport(`${origin}/mail/emails`, undefined).send(mail(to), envelope('x'));
    expect(outcome).toMatchObject({ ok: false, reason: expect.stringContaining('MAIL_PROVIDER_TOKEN') });
    expect(await inbox(to)).toHaveLength(0);
  });
});
