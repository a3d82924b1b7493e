/**
 * The daily cron drops forwarded requests D1 still holds whose expiry passed, wakes their callers' objects to
 * move the others (migration 0021), and drops rate-limit counters of minutes that ended.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { inCaller } from './history-store';

async function runCron(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '17 3 * * *' }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const row = (id: string, expiresAt: number | null) =>
  env.DB.prepare(
    `INSERT INTO forward_requests (service_id, caller_key, method, url, id, status, created, updated, expires_at)
     VALUES ('cleanup', 'v:x', 'GET', 'https://example.com/', ?, 'resolved', 1, 1, ?)`,
  ).bind(id, expiresAt);

describe('the daily cleanup of forwarding', () => {
  it('deletes expired history rows and spent rate counters, and keeps the rest', async () => {
    const now = Date.UTC(2026, 10, 23, 3, 17);
    await env.DB.batch([
      row('1:expired', now - 1),
      row('2:later', now + 60_000),
      row('3:never', null),
      env.DB.prepare("INSERT INTO forward_rate VALUES ('cleanup', 'key:k', ?, 3)").bind(now - 120_000),
      env.DB.prepare("INSERT INTO forward_rate VALUES ('cleanup', 'key:k', ?, 3)").bind(now - (now % 60_000)),
    ]);
    await runCron(now);
    // D1 keeps none: the expired row is deleted, the others moved into their caller's object (migration 0021).
    const left = await env.DB.prepare("SELECT id FROM forward_requests WHERE service_id = 'cleanup' ORDER BY id").all<{ id: string }>();
    expect(left.results).toEqual([]);
    const { rows } = await inCaller<{ id: string }>(
      { serviceId: 'cleanup', callerKey: 'v:x' },
      'SELECT id FROM forward_requests WHERE expires_at IS NULL OR expires_at > ? ORDER BY id',
      [now],
    );
    expect(rows.map((r) => r.id)).toEqual(['2:later', '3:never']);
    const windows = await env.DB.prepare("SELECT window_start FROM forward_rate WHERE service_id = 'cleanup'").all<{ window_start: number }>();
    expect(windows.results.map((r) => r.window_start)).toEqual([now - (now % 60_000)]);
  });
});
