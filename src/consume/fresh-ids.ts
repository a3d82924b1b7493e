/**
 * A set of ids kept in the isolate and brought up to date from a store at most once per `gapMs`
 * (docs/decisions.md, "Ids that do not exist cost no store read"). An id in the set is answered at
 * once; a miss waits for a refresh that started after the question was asked (`mark`), so an id
 * written to the store before the question is always found. However many misses arrive, the store
 * is read at most once per gap. No I/O of its own: `read` and `sleep` are the caller's.
 */

/** What one read brings: the ids to add, and whether the set has grown past what it keeps (then every id may exist). */
export interface IdsRead {
  ids: readonly string[];
  overflow: boolean;
}

export interface FreshIdsPorts {
  /** `full`: every id; otherwise the ids written since the read numbered `since` started (its start time, in ms). */
  read(full: boolean, since: number): Promise<IdsRead>;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Refreshes started in this isolate, all sets together: a question's mark is this count when it was asked. */
let refreshesStarted = 0;
export const markNow = (): number => refreshesStarted;

/** How often a request waiting for another request's read looks again (each waits on its own timer). */
const POLL_MS = 20;
/** A read in flight this long is taken as lost (its request ended): the next waiter reads again. */
const STUCK_MS = 10_000;

export class FreshIds {
  private readonly ids = new Set<string>();
  private overflow = false;
  /** The number (in refreshesStarted) of the last read that completed; 0 = none. */
  private completed = 0;
  private lastStart = -Infinity;
  private lastCompletedStart = -Infinity;
  /** The number of the read in flight, and when it started; 0 = none. */
  private reading = 0;
  private readingSince = -Infinity;

  constructor(
    private readonly ports: FreshIdsPorts,
    private readonly gapMs = 1_000,
  ) {}

  /** Ids held now (what a memory bound counts). */
  get size(): number {
    return this.ids.size;
  }

  /** Without waiting: true when the id is held (or the set overflowed), false when not known yet. */
  holds(id: string): boolean {
    return this.overflow || this.ids.has(id);
  }

  /** Adds an id written through this isolate, so it is found at once here. */
  add(id: string): void {
    this.ids.add(id);
  }

  /**
   * Whether `id` may exist, asked at `mark` (markNow() when the request arrived). A request never awaits
   * another request's promise (the Workers runtime runs the continuation in the other request's context,
   * where this request's body and bindings cannot be used): one request reads, the others look again
   * on their own timers.
   */
  async has(id: string, mark: number): Promise<boolean> {
    for (;;) {
      if (this.holds(id)) return true;
      if (this.completed > mark) return false;
      const now = this.ports.now();
      if (this.reading !== 0 && now - this.readingSince < STUCK_MS) await this.ports.sleep(POLL_MS);
      else if (this.lastStart + this.gapMs > now) await this.ports.sleep(this.lastStart + this.gapMs - now);
      else await this.read();
    }
  }

  private async read(): Promise<void> {
    const number = ++refreshesStarted;
    const started = this.ports.now();
    this.lastStart = started;
    this.reading = number;
    this.readingSince = started;
    try {
      const result = await this.ports.read(this.completed === 0, this.lastCompletedStart);
      for (const id of result.ids) this.ids.add(id);
      if (result.overflow) this.overflow = true;
      if (number > this.completed) {
        this.completed = number;
        this.lastCompletedStart = started;
      }
    } finally {
      if (this.reading === number) this.reading = 0;
    }
  }
}
