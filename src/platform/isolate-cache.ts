/**
 * Values read from D1 kept for a few seconds in this isolate, so a hot public route rarely waits on D1.
 * A change made through this isolate drops its entry at once; other isolates see it within the TTL.
 */
export class IsolateCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    /** Past this many entries the cache starts over (an isolate serves many projects). */
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const value = await load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
