import { callerRow, forgetCaller, TOUCH_EVERY_MS, touchCaller } from '../src/forward/caller-index';
import type { HistoryOwner } from '../src/forward/history';

/**
 * The caller's row in D1's caller index (src/forward/caller-index.ts), touched from its object at most once
 * a minute. Its first_at is read from D1 once (a caller listed by migration 0021) and kept in `caller_meta`.
 */
export class CallerIndex {
  private touchedAt = 0;
  private touching: Promise<void> | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly db: D1Database,
  ) {}

  /** A touch when one is due (null when none is): the dispatch's answer waits for it, so the owner's view has the caller. */
  touch(owner: HistoryOwner, now: number): Promise<void> | null {
    if (this.touching) return this.touching;
    if (now - this.touchedAt < TOUCH_EVERY_MS) return null;
    this.touching = this.write(owner, now)
      .catch((error: unknown) => {
        // The caller's own history has the request; the owner's view finds it once a later touch lands.
        console.error('forward caller index touch failed', error instanceof Error ? error.message : String(error));
      })
      .finally(() => {
        this.touching = null;
      });
    return this.touching;
  }

  private async write(owner: HistoryOwner, now: number): Promise<void> {
    let firstAt = this.meta('first_at');
    if (firstAt === null) {
      firstAt = (await callerRow(this.db, owner))?.first_at ?? now;
      this.sql.exec("INSERT OR REPLACE INTO caller_meta (name, value) VALUES ('first_at', ?)", firstAt);
    }
    await touchCaller(this.db, owner, firstAt, now);
    this.touchedAt = now;
  }

  /** The caller has no history left: its row leaves the index (a later request lists it again). */
  async forget(owner: HistoryOwner): Promise<void> {
    const firstAt = this.meta('first_at');
    if (firstAt === null) return;
    await forgetCaller(this.db, owner, firstAt);
    this.sql.exec("DELETE FROM caller_meta WHERE name = 'first_at'");
    this.touchedAt = 0;
  }

  meta(name: string): number | null {
    return this.sql.exec<{ value: number }>('SELECT value FROM caller_meta WHERE name = ?', name).toArray()[0]?.value ?? null;
  }
}
