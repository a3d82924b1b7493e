/**
 * Values read from D1 kept for a few seconds in this isolate, so a hot public route rarely waits on D1.
 * A change made through this isolate drops its entry at once; other isolates see it within the TTL.
 */
export class IsolateCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();
  /** Keys being read, each with its read's number and start. */
  private readonly reading = new Map<string, { read: number; since: number }>();
  private reads = 0;

  constructor(
    private readonly ttlMs: number,
    /** Past this many entries the cache starts over (an isolate serves many projects). */
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    const now = Date.now();
    if (hit && hit.expires > now) return hit.value;
    // While one request reads an expired entry again, the others keep the old value: one read, not one
    // per request in flight (a request cannot await another's read: the runtime ties I/O to its request).
    const other = this.reading.get(key);
    if (hit && other && now - other.since < STUCK_MS) return hit.value;
    const mine = { read: ++this.reads, since: now };
    this.reading.set(key, mine);
    try {
      const value = await load();
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      // Not kept when the entry was dropped (a change) while it was read.
      if (this.reading.get(key) === mine) this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
      return value;
    } finally {
      if (this.reading.get(key) === mine) this.reading.delete(key);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
    this.reading.delete(key);
  }
}

/** A read again in flight this long is taken as lost (its request ended): the next request reads. */
const STUCK_MS = 10_000;
