/** What the alert tests share: the minute's cron driven as the trigger would, and a destination paused as its caller's object reports it. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';
import worker from '../../src/index';

export const MIN = 60_000;

/** Drives the Worker's scheduled handler as the minute's cron trigger would, at `scheduledTime`. */
export async function runCron(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '* * * * *' }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** Notifications leave through the work queue, a little after the evaluation. */
export const eventually = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 20_000, interval: 100 });

/** A destination of the project paused, as a forwarding caller's object reports it (src/forward/destination-report.ts). */
export const pauseDestination = (serviceId: string, now: number) =>
  env.DB.prepare(
    `INSERT INTO destination_circuits (service_id, caller_key, origin, state, since, failures, probe_at, reported_at) VALUES (?, 'u1', 'https://api.example.com', 'open', ?, 5, ?, ?)`,
  )
    .bind(serviceId, now, now + MIN, now)
    .run();

export const resumeDestinations = (serviceId: string) => env.DB.prepare('DELETE FROM destination_circuits WHERE service_id = ?').bind(serviceId).run();
