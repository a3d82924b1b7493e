/**
 * A streamed request's pieces after it settled: kept in SQLite a minute for the reader following the
 * stream, then moved to R2 (stream-archive.ts) by a job; dropped with the request, the R2 object deleted by
 * a job retried until it is.
 */
import type { ForwardStreams } from '../forward-streams';
import type { Job } from '../job-table';
import { archiveKey } from '../stream-archive';
import type { ForwardJobTable } from './forward-jobs';
import type { QueuedRequest, RequestsStore } from './requests-store';

/**
 * A settled stream's pieces move to R2 this long after it settled: a reader following the stream reads its
 * tail from SQLite, later readers read R2.
 */
const STREAM_MOVE_DELAY_MS = 60_000;

export class StreamMover {
  constructor(
    private readonly store: RequestsStore,
    private readonly streams: ForwardStreams,
    private readonly jobs: ForwardJobTable,
  ) {}

  /** A request's stream settled (not finalized): its pieces move after STREAM_MOVE_DELAY_MS. */
  settled(seq: number): void {
    this.schedule(seq, Date.now() + STREAM_MOVE_DELAY_MS);
  }

  /** Settled streams whose pieces are still in SQLite with no move scheduled (kept before pieces moved to R2). */
  scheduleUnmoved(): void {
    for (const seq of this.store.unmovedStreams()) this.schedule(seq, Date.now());
  }

  /** Drops a request's pieces; an R2 object that held them is deleted by a job (retried until it is). */
  drop(seq: number): void {
    const moved = this.streams.drop(seq);
    if (moved !== null) this.jobs.add('drop-stream', Date.now(), { key: moved });
  }

  /** Moves a settled, not finalized stream's pieces to R2 (the alarm runs every foreground job: this one waits for its time). */
  async move(job: Job<'move-stream'>): Promise<void> {
    if (job.run_at > Date.now()) return;
    const { seq } = this.jobs.payloadOf(job);
    const settledStream = (): QueuedRequest | null => {
      const request = this.store.bySeq(seq);
      return request && !request.unresolved && request.record.stream && !request.record.finalized ? request : null;
    };
    const found = settledStream();
    if (found) {
      const key = await archiveKey(found.plan.owner, found.record.id);
      await this.streams.move(seq, key, () => settledStream() !== null);
    }
    this.jobs.delete(job.id);
  }

  /** Deletes the R2 object of a dropped stream. */
  async deleteMoved(job: Job<'drop-stream'>): Promise<void> {
    await this.streams.deleteMoved(this.jobs.payloadOf(job).key);
    this.jobs.delete(job.id);
  }

  private schedule(seq: number, at: number): void {
    const payload = { seq };
    if (!this.jobs.has('move-stream', payload)) this.jobs.add('move-stream', at, payload);
  }
}
