/** Retries of a 429 answered with Retry-After (spec 8). */
export const MAX_RETRIES = 6;

/** The wait a Retry-After header asks for, in ms (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The server's wait plus up to 250 ms + 10% of it at random, so clients told the same wait spread out. */
export function withJitter(waitMs: number, random = Math.random()): number {
  return waitMs + Math.floor(random * (250 + waitMs / 10));
}
