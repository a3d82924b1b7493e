/**
 * Back-pressure (issue 36 item 2, an extension): how long a destination that answered 429 or 503 asks to be
 * left alone, read from `Retry-After` (RFC 9110 10.2.3: delta-seconds or an HTTP date) and the
 * `X-RateLimit-Reset` family, else a backoff. Pure: the clock and the random source are given.
 */

/** The statuses that say the destination did not act on the request, so sending it again is safe. */
export const BACK_PRESSURE_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** The longest wait any answer can ask for. */
export const MAX_WAIT_MS = 86_400_000;
/** A hint past this is not a rate limit but an error (a date years ahead): ignored, the backoff applies. */
const ABSURD_MS = 7 * MAX_WAIT_MS;
/** The backoff's longest step. */
export const MAX_BACKOFF_MS = 3_600_000;
/** A number above this in a reset header is an epoch time in seconds (2001-09-09), not a delta. */
const EPOCH_SECONDS_FROM = 1e9;
/** ... and above this an epoch time in milliseconds. */
const EPOCH_MS_FROM = 1e12;

/** The reset headers, in the order they are read; the longest valid wait among them wins. */
const RESET_HEADERS = ['x-ratelimit-reset', 'ratelimit-reset', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens'];

const DURATION_UNITS_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000_001 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/** A Go-style duration (`1s`, `6m0s`, `20ms`, `1h2m3.5s`) in ms; undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(DURATION_PART)) total += Number(amount) * (DURATION_UNITS_MS[unit as string] ?? Number.NaN);
  return Number.isFinite(total) ? total : undefined;
}

/** A month name and a time of day, as each of RFC 9110's three date forms has, or an ISO 8601 date-time. */
const HTTP_DATE_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b.*\b\d{1,2}:\d{2}:\d{2}\b/i;

/** An HTTP date as ms from now; undefined when the text is not one. */
function dateDeltaMs(text: string, now: number): number | undefined {
  // Date.parse is lenient ('soon 2' is a date in 2001): only text shaped like an HTTP date is given to it.
  if (!HTTP_DATE_SHAPE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at - now;
}

/** Retry-After: whole seconds or an HTTP date. */
function retryAfterMs(text: string, now: number): number | undefined {
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  return dateDeltaMs(text, now);
}

/** A reset header: delta seconds, an epoch time (seconds or ms), a duration or a date. */
function resetMs(text: string, now: number): number | undefined {
  if (/^\d{1,16}(?:\.\d+)?$/.test(text)) {
    const value = Number(text);
    if (value > EPOCH_MS_FROM) return value - now;
    if (value > EPOCH_SECONDS_FROM) return value * 1000 - now;
    return value * 1000;
  }
  return durationMs(text) ?? dateDeltaMs(text, now);
}

/** A wait worth honouring: positive and not absurd, capped at MAX_WAIT_MS; else undefined. */
function usable(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0 || ms > ABSURD_MS) return undefined;
  return Math.min(Math.ceil(ms), MAX_WAIT_MS);
}

/**
 * How long (ms) the answer asks to wait before the request is sent again, and the header that asked;
 * undefined when it is not a back-pressure status or asks for nothing usable. Retry-After wins over the
 * reset headers. A zero, a negative value, a date in the past, garbage or a wait of more than a week is
 * ignored (the backoff applies): a destination is never sent to in a tight loop on a stale or broken
 * hint. `headers` has lower-case names, as the outbound answer keeps them (outbound/fetch.ts).
 */
export function requestedWait(status: number, headers: Readonly<Record<string, string>>, now: number): { ms: number; header: string } | undefined {
  if (!BACK_PRESSURE_STATUSES.has(status)) return undefined;
  const retryAfter = headers['retry-after']?.trim();
  const asked = retryAfter ? usable(retryAfterMs(retryAfter, now)) : undefined;
  if (asked !== undefined) return { ms: asked, header: 'retry-after' };
  let longest: { ms: number; header: string } | undefined;
  for (const name of RESET_HEADERS) {
    const value = headers[name]?.trim();
    const wait = value ? usable(resetMs(value, now)) : undefined;
    if (wait !== undefined && (longest === undefined || wait > longest.ms)) longest = { ms: wait, header: name };
  }
  return longest;
}

/** requestedWait's ms alone. */
export function requestedWaitMs(status: number, headers: Readonly<Record<string, string>>, now: number): number | undefined {
  return requestedWait(status, headers, now)?.ms;
}

/** The backoff after `waits` earlier waits: baseMs doubled per wait, capped, with jitter (half to all of it). */
export function backoffMs(waits: number, baseMs: number, random: () => number): number {
  const step = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.min(Math.max(0, waits), 40));
  const jitter = Math.min(1, Math.max(0, random()));
  return Math.max(1, Math.round(step * (0.5 + jitter / 2)));
}
