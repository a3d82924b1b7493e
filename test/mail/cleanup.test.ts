/** The daily cleanup of mail: expired outbox rows, newsletter sends, their batches and R2 bodies leave in bounded runs. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { Env, WorkMessage } from '../../src/env';
import worker from '../../src/index';
import { keyDay } from '../../src/mail/bodies';
import { ROUND_TRIPS_PER_RUN, ROWS_PER_STATEMENT, R2_PAGES_PER_RUN, runMailCleanup } from '../../src/mail/cleanup';
import { MAIL_LIFETIME_MS } from '../../src/mail/lifetime';
import { countingBucket, countingDb } from './helpers';

const DAY = 86_400_000;

/** `count` outbox rows of `serviceId` in one statement: with an expiry (`expires` set) or written before 0014 (NULL). */
const outboxRowsStatement = (serviceId: string, count: number, created: number, expires: number | null) =>
  env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
     INSERT INTO mail_outbox (service_id, message_key, kind, mail_from, mail_to, subject, html, text, created, expires)
     SELECT ?1, 'mail:c' || ?3 || ':' || i, 'mail', 'Shop <no-reply@localhost>', 'u' || i || '@example.com', 'Receipt', '<p>old</p>', 'old', ?3, ?4 FROM n`,
  ).bind(serviceId, count, created, expires);

const sendStatements = (serviceId: string, sendId: string, created: number, expires: number | null) => [
  env.DB.prepare(
    `INSERT INTO newsletter_sends (service_id, send_id, grp, message_id, mail_from, subject, html, text, service_name, planned_batches, created, updated, expires)
     VALUES (?, ?, 'public', 'n', 'Shop <no-reply@localhost>', 'News', '', '', 'Shop', 3, ?3, ?3, ?4)`,
  ).bind(serviceId, sendId, created, expires),
  ...[0, 1, 2].map((batch) =>
    env.DB.prepare(
      `INSERT INTO newsletter_batches (service_id, send_id, batch, status, recipients, created, updated) VALUES (?, ?, ?, 'sent', 100, ?4, ?4)`,
    ).bind(serviceId, sendId, batch, created),
  ),
];

async function putBodies(day: string, serviceId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, (_, j) => env.BODIES.put(`mail/${day}/${serviceId}/b${i + j}`, '{"html":"x","text":"x"}')),
    );
  }
}

const countOf = async (sql: string, ...params: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...params)
    .first<{ n: number }>())!.n;
const bodiesUnder = async (prefix: string) => {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await env.BODIES.list({ prefix, cursor });
    n += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
};

describe('mail cleanup keeps up in bounded runs', () => {
  it('removes 12,000 expired rows, 20 expired sends with their batches and 2,500 expired bodies in at most ceil(rows / (rows per run)) + 1 runs, each within 20 D1 queries and 11 R2 calls of ≤ 1,000 keys, and keeps what is live', async () => {
    const now = Date.now();
    const sid = `cleanup-${crypto.randomUUID()}`;
    const expiredDay = keyDay(now - 2 * DAY);
    const liveDay = keyDay(now + 10 * DAY);
    await env.DB.batch([
      outboxRowsStatement(sid, 6_000, now - 5 * DAY, now - DAY),
      outboxRowsStatement(sid, 6_000, now - MAIL_LIFETIME_MS - DAY, null),
      outboxRowsStatement(sid, 7, now, now + 10 * DAY),
      outboxRowsStatement(sid, 5, now - DAY, null),
      ...Array.from({ length: 10 }, (_, i) => sendStatements(sid, `old-${i}`, now - MAIL_LIFETIME_MS - DAY, null)).flat(),
      ...Array.from({ length: 10 }, (_, i) => sendStatements(sid, `expired-${i}`, now - 5 * DAY, now - DAY)).flat(),
      ...sendStatements(sid, 'live', now, now + 10 * DAY),
    ]);
    await putBodies(expiredDay, sid, 2_500);
    await putBodies(liveDay, sid, 3);

    const continued: WorkMessage[] = [];
    const queue = { send: async (body: WorkMessage) => void continued.push(body) } as unknown as Queue<WorkMessage>;
    const runs: Array<{ rows: number; bodies: number; queries: number; r2Calls: number; largestDelete: number; ms: number }> = [];
    for (let more = true; more && runs.length < 10; ) {
      const d1 = countingDb(env.DB);
      const r2 = countingBucket(env.BODIES);
      const started = performance.now();
      const result = await runMailCleanup({ ...env, DB: d1.db, BODIES: r2.bucket, WORK_QUEUE: queue } as Env, now);
      runs.push({
        ...result,
        queries: d1.count(),
        r2Calls: r2.count(),
        largestDelete: Math.max(0, ...r2.deletedPerCall),
        ms: Math.round(performance.now() - started),
      });
      more = result.more;
    }

    const rowsPerRun = ROWS_PER_STATEMENT * ROUND_TRIPS_PER_RUN;
    expect(runs.length).toBeLessThanOrEqual(Math.ceil(12_000 / rowsPerRun) + 1);
    expect(continued).toHaveLength(runs.length - 1);
    for (const run of runs) {
      expect(run.queries).toBeLessThanOrEqual(4 * ROUND_TRIPS_PER_RUN);
      expect(run.r2Calls).toBeLessThanOrEqual(1 + 2 * R2_PAGES_PER_RUN);
      expect(run.largestDelete).toBeLessThanOrEqual(1_000);
    }
    expect(await countOf('SELECT COUNT(*) AS n FROM mail_outbox WHERE service_id = ?', sid)).toBe(12);
    expect(await countOf('SELECT COUNT(*) AS n FROM newsletter_sends WHERE service_id = ?', sid)).toBe(1);
    expect(await countOf('SELECT COUNT(*) AS n FROM newsletter_batches WHERE service_id = ?', sid)).toBe(3);
    expect(await bodiesUnder(`mail/${expiredDay}/${sid}/`)).toBe(0);
    expect(await bodiesUnder(`mail/${liveDay}/${sid}/`)).toBe(3);
    const removed = runs.reduce((sum, run) => sum + run.rows + run.bodies, 0);
    const ms = runs.reduce((sum, run) => sum + run.ms, 0);
    console.info(`mail cleanup: ${removed} rows+bodies in ${runs.length} runs, ${JSON.stringify(runs)}; ${Math.round((removed / ms) * 1000)} per second`);
  });

  it('the daily cron removes expired mail and continues through the work queue until none is left', async () => {
    const now = Date.now();
    const sid = `cron-${crypto.randomUUID()}`;
    await env.DB.batch([outboxRowsStatement(sid, 7_000, now - 5 * DAY, now - DAY), outboxRowsStatement(sid, 2, now, now + DAY)]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: now, cron: '17 3 * * *' }), env, ctx);
    await waitOnExecutionContext(ctx);
    // One run removes at most 5,000; the rest goes in the continuation the queue delivers.
    await vi.waitFor(async () => expect(await countOf('SELECT COUNT(*) AS n FROM mail_outbox WHERE service_id = ?', sid)).toBe(2), {
      timeout: 15_000,
      interval: 200,
    });
  });
});
