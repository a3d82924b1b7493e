/**
 * The bench's stand-in for the Workers Rate Limiting bindings (issue 34): an in-isolate counter with the
 * binding's contract, so `npm run bench` can report the gateway's own cost beside its cost against
 * miniflare's simulated binding. Locally every `limit()` is a Durable Object request with SQLite writes;
 * Cloudflare documents the production binding as a counter "cached on the same machine that your Worker
 * runs in" ("You are not waiting on a network request", workers/runtime-apis/bindings/rate-limit).
 *
 * The contract kept, as miniflare's simulator keeps it: one counter per namespace_id and key, in fixed
 * windows of `period` seconds aligned to the wall clock; a call is allowed (`{ success: true }`) and
 * counted while the key's count is below `limit`, refused (`{ success: false }`, not counted) from then
 * on until the window ends. Limits and periods come from the [[ratelimits]] tables of the config the
 * bench runs (bench/wrangler-dev.mjs writes them to BENCH_RATE_LIMITS). Only bench/gateway-entry.ts
 * imports this file: never part of the shipped Worker (.ci/run greps the bundle for its name).
 */

/** One [[ratelimits]] table: binding name → its namespace and `simple = { limit, period }`. */
export type RateLimitTable = Record<string, { namespace: string; limit: number; period: number }>;

/** The counts of one namespace and period in the current window. */
export type RateLimitWindow = { epoch: number; counts: Map<string, number> };

/** A binding's contract, answered from this isolate's memory. */
export class BenchRateLimitStandIn implements RateLimit {
  constructor(
    private readonly window: RateLimitWindow,
    private readonly max: number,
    private readonly periodMs: number,
    private readonly now: () => number,
  ) {}

  async limit(options: RateLimitOptions): Promise<RateLimitOutcome> {
    const { key, delta = 1 } = options;
    if (typeof key !== 'string') throw new TypeError(`invalid key: ${key}`);
    if (!Number.isInteger(delta) || delta < 1) throw new TypeError(`delta must be a positive integer: ${delta}`);
    const epoch = Math.floor(this.now() / this.periodMs);
    // Windows are aligned to the clock: every key of the namespace rolls over at once.
    if (this.window.epoch !== epoch) {
      this.window.epoch = epoch;
      this.window.counts.clear();
    }
    const count = this.window.counts.get(key) ?? 0;
    if (count >= this.max) return { success: false };
    this.window.counts.set(key, count + delta);
    return { success: true };
  }
}

/** Reads BENCH_RATE_LIMITS (JSON of a RateLimitTable); a period other than 10 or 60 is refused, as wrangler does. */
export function parseRateLimitTable(text: string): RateLimitTable {
  const table = JSON.parse(text) as RateLimitTable;
  for (const [name, { namespace, limit, period }] of Object.entries(table)) {
    if (!/^\d+$/.test(namespace) || !Number.isInteger(limit) || limit < 0 || (period !== 10 && period !== 60)) {
      throw new Error(`bench: bad rate limit ${name}: ${JSON.stringify(table[name])}`);
    }
  }
  return table;
}

/**
 * One stand-in per binding of `table`. Bindings of one namespace share its counters (as on Cloudflare);
 * `windows` holds them, so stand-ins made again over the same map keep counting where they were. `now`
 * is the clock (tests move it).
 */
export function standInBindings(table: RateLimitTable, { windows = new Map<string, RateLimitWindow>(), now = Date.now } = {}): Record<string, RateLimit> {
  const out: Record<string, RateLimit> = {};
  for (const [name, { namespace, limit, period }] of Object.entries(table)) {
    const id = `${namespace}/${period}`;
    let window = windows.get(id);
    if (!window) windows.set(id, (window = { epoch: -1, counts: new Map() }));
    out[name] = new BenchRateLimitStandIn(window, limit, period * 1000, now);
  }
  return out;
}
