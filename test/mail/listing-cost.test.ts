/**
 * What one page of the outbox costs in R2 reads, by where its bodies live; prints the measured page
 * times and D1 bytes per row (docs/decisions.md, "Mail storage"). Times are printed, never asserted.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { INLINE_BODY_BYTES } from '../../src/mail/bodies';
import { newsletterMailKey } from '../../src/mail/newsletter-batches';
import { createSend, loadSend } from '../../src/mail/newsletter-sends';
import { listOutbox, OutboxTransport } from '../../src/mail/outbox-transport';
import { countingBucket } from './helpers';

const PAGE = 50;
const TEMPLATE = `<p>Dear \${email}</p>${'<p>Our news of the week, in full.</p>'.repeat(100)}`;
const scope = (name: string) => `cost-${name}-${crypto.randomUUID()}`;
const projects = { inline: scope('inline'), single: scope('single'), newsletter: scope('newsletter') };

async function fill(
  serviceId: string,
  html: (i: number) => string,
  envelope: (i: number) => { key: string; kind: 'mail' | 'newsletter'; send_id?: string; shared_body_key?: string; expires?: number },
) {
  const outbox = new OutboxTransport(env.DB, Date.now, env.BODIES);
  for (let i = 0; i < PAGE; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => {
        const n = i + j;
        const to = `r${String(n).padStart(3, '0')}@example.com`;
        return outbox.send(
          { from: 'Shop <no-reply@localhost>', to, subject: 'News', html: html(n).replaceAll('${email}', to), text: '' },
          { service_id: serviceId, ...envelope(n) },
        );
      }),
    );
  }
}

beforeAll(async () => {
  await fill(
    projects.inline,
    (i) => `<p>Receipt ${i} for \${email}</p>`,
    (i) => ({ key: `mail:c:${i}`, kind: 'mail' }),
  );
  await fill(
    projects.single,
    (i) => `${i}${TEMPLATE}`,
    (i) => ({ key: `mail:c:${i}`, kind: 'mail' }),
  );
  await createSend(
    env.DB,
    projects.newsletter,
    {
      send_id: 's1',
      group_key: 'g',
      message_id: 'n',
      from: 'Shop <no-reply@localhost>',
      subject: 'News',
      html: TEMPLATE,
      text: '',
      service_name: 'Shop',
      ticket_id: null,
      consume_id: null,
      action_path: null,
      created: Date.now(),
    },
    env.BODIES,
  );
  const send = (await loadSend(env.DB, projects.newsletter, 's1'))!;
  await fill(
    projects.newsletter,
    () => TEMPLATE,
    (i) => ({
      key: newsletterMailKey('s1', `r${String(i).padStart(3, '0')}@example.com`),
      kind: 'newsletter',
      send_id: 's1',
      shared_body_key: send.body_key!,
      expires: send.expires!,
    }),
  );
});

async function page(serviceId: string) {
  const counted = countingBucket(env.BODIES);
  const times: number[] = [];
  let list: Awaited<ReturnType<typeof listOutbox>> = [];
  for (let round = 0; round < 21; round++) {
    const started = performance.now();
    list = await listOutbox(env.DB, counted.bucket, serviceId, { limit: PAGE, now: Date.now() });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { list, readsPerPage: counted.count() / 21, p50: Math.round(times[10] * 10) / 10 };
}

/** Bytes of the values a project's outbox rows store in D1 (text lengths + 24 for the integers), per row; indexes not counted. */
async function d1BytesPerRow(serviceId: string): Promise<number | string> {
  try {
    const stat = await env.DB.prepare(
      `SELECT (SELECT SUM(length(service_id) + length(message_key) + length(kind) + length(mail_from) + length(mail_to) + length(subject) + length(html) + length(text)
                + coalesce(length(body_key), 0) + 24) FROM mail_outbox WHERE service_id = ?1) AS row_bytes,
              (SELECT COUNT(*) FROM mail_outbox WHERE service_id = ?1) AS n`,
    )
      .bind(serviceId)
      .first<{ row_bytes: number; n: number }>();
    return Math.round(stat!.row_bytes / stat!.n);
  } catch (err) {
    return String(err);
  }
}

describe('the cost of one outbox page by where its bodies live', () => {
  it("a page of a newsletter's mails reads its send's one body object; a page of large single mails reads each body once, none when inline", async () => {
    const inline = await page(projects.inline);
    const single = await page(projects.single);
    const newsletter = await page(projects.newsletter);
    expect([inline.list.length, single.list.length, newsletter.list.length]).toEqual([PAGE, PAGE, PAGE]);
    expect(inline.readsPerPage).toBe(0);
    expect(newsletter.readsPerPage).toBe(1);
    expect(single.readsPerPage).toBe(PAGE);
    expect(newsletter.list.find((mail) => mail.to === 'r007@example.com')?.html).toBe(TEMPLATE.replaceAll('${email}', 'r007@example.com'));
    console.info(
      `outbox page of ${PAGE}, p50 of 21: inline ${inline.p50} ms (${await d1BytesPerRow(projects.inline)} B of values/row in D1), ` +
        `single mails in R2 ${single.p50} ms (${await d1BytesPerRow(projects.single)} B/row), newsletter ${newsletter.p50} ms (${await d1BytesPerRow(projects.newsletter)} B/row); inline limit ${INLINE_BODY_BYTES} B`,
    );
  });
});
