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

export class FreshIds {
  private readonly ids = new Set<string>();
  private overflow = false;
  /** The number (in refreshesStarted) of the last refresh that completed; 0 = none. */
  private completed = 0;
  private lastStart = -Infinity;
  private lastCompletedStart = -Infinity;
  private next: Promise<void> | undefined;
  private running: Promise<void> = Promise.resolve();
  private runningNumber = 0;

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

  /** Whether `id` may exist, asked at `mark` (markNow() when the request arrived). */
  async has(id: string, mark: number): Promise<boolean> {
    for (;;) {
      if (this.holds(id)) return true;
      if (this.completed > mark) return false;
      if (this.runningNumber > mark) await this.running;
      else await (this.next ??= this.refresh());
    }
  }

  private async refresh(): Promise<void> {
    // In order, and at most one start per gap.
    await this.running.catch(() => undefined);
    const wait = this.lastStart + this.gapMs - this.ports.now();
    if (wait > 0) await this.ports.sleep(wait);
    this.next = undefined;
    const number = ++refreshesStarted;
    const started = this.ports.now();
    this.lastStart = started;
    const full = this.completed === 0;
    const read = this.ports.read(full, this.lastCompletedStart).then((result) => {
      for (const id of result.ids) this.ids.add(id);
      if (result.overflow) this.overflow = true;
      this.completed = number;
      this.lastCompletedStart = started;
    });
    this.running = read;
    this.runningNumber = number;
    await read;
  }
}
