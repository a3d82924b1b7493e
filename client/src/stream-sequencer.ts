/**
 * The order of a streamed read (spec 6.2): pieces come from the poll and from the realtime socket, in
 * any order and possibly twice; the sequencer hands each sequence number over once, in order, naming
 * the transport that brought it first. Pure: no timers, no I/O.
 */

/** Which transport carried a piece to onStream. */
export type StreamVia = 'socket' | 'poll';

export interface StreamDelivery {
  seq: number;
  txt: string;
  via: StreamVia;
}

export class StreamSequencer {
  private last: number;
  /** Pieces that arrived ahead of a missing one, by seq. */
  private readonly held = new Map<number, StreamDelivery>();

  /** `delivered`: the seq already handed over (the read's `since`). */
  constructor(delivered: number) {
    this.last = delivered;
  }

  /** The last seq handed over: the cursor the next poll sends. */
  get delivered(): number {
    return this.last;
  }

  /** True while a piece waits for a missing one before it. */
  get waiting(): boolean {
    return this.held.size > 0;
  }

  /**
   * Takes one piece and answers what is now deliverable, in order: nothing for a piece already handed
   * over or already held (the first arrival keeps its `via`), nothing yet for a piece ahead of a gap.
   */
  offer(seq: number, txt: string, via: StreamVia): StreamDelivery[] {
    if (!Number.isSafeInteger(seq) || seq <= this.last || this.held.has(seq)) return [];
    if (seq !== this.last + 1) {
      this.held.set(seq, { seq, txt, via });
      return [];
    }
    const ready: StreamDelivery[] = [{ seq, txt, via }];
    this.last = seq;
    for (let next = this.held.get(this.last + 1); next; next = this.held.get(this.last + 1)) {
      this.held.delete(next.seq);
      ready.push(next);
      this.last = next.seq;
    }
    return ready;
  }
}
