/**
 * The rate limiter's second store (flood.ts is the first; both refuse with refusal.ts).
 * The per-minute abuse limits of a Secret Key (beyond the seed): calls per caller and calls per key, counted
 * in D1 per fixed minute. A call is counted only when every counter still has room; a call over a limit is
 * refused with how long until the minute ends.
 */
import type { SecretKeyLimits } from '../platform/schemas';

const WINDOW_MS = 60_000;

export type RateVerdict = { ok: true } | { ok: false; retryAfterSeconds: number; message: string };

interface Counter {
  scope: string;
  limit: number;
  what: string;
}

/** The start of the fixed minute `now` falls in. */
const windowOf = (now: number) => now - (now % WINDOW_MS);

/** The refusal of a call over `counter`'s limit: wait until the minute ends. */
function overLimit({ limit, what }: Counter, now: number): RateVerdict {
  return {
    ok: false,
    retryAfterSeconds: Math.max(1, Math.ceil((windowOf(now) + WINDOW_MS - now) / 1000)),
    message: `Too many requests: at most ${limit} ${what}.`,
  };
}

function countersOf(keyName: string, callerKey: string, limits: SecretKeyLimits): Counter[] {
  const counters: Counter[] = [];
  if (limits.per_key_per_minute) counters.push({ scope: `key:${keyName}`, limit: limits.per_key_per_minute, what: 'calls a minute with this client secret' });
  if (limits.per_caller_per_minute) {
    counters.push({ scope: `caller:${keyName}:${callerKey}`, limit: limits.per_caller_per_minute, what: 'calls a minute per caller with this client secret' });
  }
  return counters;
}

/** Takes one call from each counter, or none when one is full (a counter taken before the full one is given back). */
export async function takeRateLimits(
  db: D1Database,
  serviceId: string,
  keyName: string,
  callerKey: string,
  limits: SecretKeyLimits,
  now: number,
): Promise<RateVerdict> {
  const counters = countersOf(keyName, callerKey, limits);
  if (counters.length === 0) return { ok: true };
  const windowStart = windowOf(now);
  const taken = await db.batch(
    counters.map((counter) =>
      db
        .prepare(
          `INSERT INTO forward_rate (service_id, scope, window_start, calls) VALUES (?1, ?2, ?3, 1)
           ON CONFLICT (service_id, scope, window_start) DO UPDATE SET calls = calls + 1 WHERE calls < ?4
           RETURNING calls`,
        )
        .bind(serviceId, counter.scope, windowStart, counter.limit),
    ),
  );
  const full = counters.findIndex((_, i) => taken[i].results.length === 0);
  if (full < 0) return { ok: true };
  await giveBack(
    db,
    serviceId,
    counters.filter((_, i) => taken[i].results.length > 0),
    windowStart,
  );
  return overLimit(counters[full], now);
}

async function giveBack(db: D1Database, serviceId: string, counters: Counter[], windowStart: number): Promise<void> {
  if (counters.length === 0) return;
  await db.batch(
    counters.map((counter) =>
      db
        .prepare('UPDATE forward_rate SET calls = calls - 1 WHERE service_id = ? AND scope = ? AND window_start = ? AND calls > 0')
        .bind(serviceId, counter.scope, windowStart),
    ),
  );
}

/** Gives back the call takeRateLimits took at `takenAt` (the call was refused afterwards and sent nothing). */
export function returnRateLimits(
  db: D1Database,
  serviceId: string,
  keyName: string,
  callerKey: string,
  limits: SecretKeyLimits,
  takenAt: number,
): Promise<void> {
  return giveBack(db, serviceId, countersOf(keyName, callerKey, limits), windowOf(takenAt));
}

/** Drops the counters of minutes that ended (the daily cron). */
export const pastRateWindows = (db: D1Database, now: number) => db.prepare('DELETE FROM forward_rate WHERE window_start < ?').bind(now - WINDOW_MS);

/** The verdict takeRateLimits would give now, counting nothing (a dry run). */
export async function peekRateLimits(
  db: D1Database,
  serviceId: string,
  keyName: string,
  callerKey: string,
  limits: SecretKeyLimits,
  now: number,
): Promise<RateVerdict> {
  for (const counter of countersOf(keyName, callerKey, limits)) {
    const row = await db
      .prepare('SELECT calls FROM forward_rate WHERE service_id = ? AND scope = ? AND window_start = ?')
      .bind(serviceId, counter.scope, windowOf(now))
      .first<{ calls: number }>();
    if ((row?.calls ?? 0) >= counter.limit) return overLimit(counter, now);
  }
  return { ok: true };
}
