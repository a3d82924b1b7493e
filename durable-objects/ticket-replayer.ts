/**
 * Bulk replay in a ticket's object (issue 36 item 4, an extension): the owner's filter is counted (a dry
 * run) or started as a `bulk-replay` job; each step is an invocation of its own started by the object's
 * alarm, replays the next entry in order (oldest first) and saves where it stands, so a replay of 100,000
 * entries runs across invocations, survives restarts and can be cancelled between two entries.
 */
import { MAX_REPLAY_ENTRIES, DEFAULT_PER_MINUTE, type BulkReplayRequest, type ReplaySkip } from '../schemas/bulk-replays';
import {
  countedEntry,
  stepIntervalMs,
  selectionOf,
  skipOf,
  startingProgress,
  type BulkReplay,
  type Refusal,
  type ReplaySpec,
  type ReplayStart,
} from '../src/consume/bulk-replay';
import { replayOfEntry } from '../src/consume/replay-input';
import type { ConsumeInput, ConsumeOutcome } from '../src/consume/types';
import type { Env } from '../src/env';
import { CONSUMPTION_BUDGET_MS, DEADLINE_GRACE_MS } from '../src/limits';
import type { Job } from './job-table';
import type { TicketStore } from './ticket-store';

/** How long a step holds its job: its entry may use a whole consumption budget. */
const STEP_LEASE_MS = CONSUMPTION_BUDGET_MS + DEADLINE_GRACE_MS + 4_000;
/** Entries per step: one, since a consumption may spend an invocation's whole fetch budget on the Free plan. */
const BATCH = 1;

const conflict = (message: string): Refusal => ({ refused: { code: 'INVALID_REQUEST', message, status: 409 } });

type EntryResult = { skipped: ReplaySkip } | { ok: true } | { ok: false; consume_id: string; code: string };

export class TicketReplayer {
  constructor(
    private readonly data: TicketStore,
    private readonly env: Env,
    private readonly consume: (input: ConsumeInput) => Promise<ConsumeOutcome>,
  ) {}

  /** Counts what the filter matches (a dry run) or starts the replay; at most one runs at a time per ticket. */
  start(request: BulkReplayRequest, now: number): ReplayStart {
    const spec: ReplaySpec = { filter: request.filter, full: request.full ?? false, per_minute: request.per_minute ?? DEFAULT_PER_MINUTE, until: now };
    const { matched, unindexed } = this.count(spec);
    if (request.dry_run) return { dry_run: true, matched, unindexed, limit: MAX_REPLAY_ENTRIES };
    if (matched > MAX_REPLAY_ENTRIES) {
      const message = `Invalid "filter": it matches ${matched} entries; a replay takes at most ${MAX_REPLAY_ENTRIES}. Narrow the time range.`;
      return { refused: { code: 'INVALID_PARAMETER', message, status: 400, detail: { field: 'filter', matched } } };
    }
    const running = this.data.replays.running();
    if (running) return conflict(`Bulk replay ${running.id} of this ticket is still running: cancel it or wait for it to end.`);
    const replay = this.data.replays.create(spec, matched, { ...startingProgress(), next_at: now }, now);
    this.data.jobs.add('bulk-replay', now, { id: replay.id });
    return { dry_run: false, replay };
  }

  /** Cancels a running replay between two entries; a replay that ended cannot be. */
  cancel(id: number, now: number): BulkReplay | Refusal | undefined {
    const replay = this.data.replays.get(id);
    if (!replay) return undefined;
    if (replay.state !== 'running') return conflict(`Bulk replay ${id} is already ${replay.state}: there is nothing to cancel.`);
    const { next_at: _, ...progress } = replay.progress;
    this.data.replays.save(id, progress, { state: 'cancelled', at: now });
    return this.data.replays.get(id);
  }

  /** One step: the next entry, in order; due again after its share of the minute. */
  async step(job: Job<'bulk-replay'>): Promise<void> {
    const { id } = this.data.jobs.payloadOf(job);
    const replay = this.data.replays.get(id);
    const scope = this.data.log.scope();
    if (!replay || replay.state !== 'running' || !scope) {
      this.data.jobs.delete(job.id);
      return;
    }
    this.data.jobs.reschedule(job.id, Date.now() + STEP_LEASE_MS);
    let { progress } = replay;
    // A step cut off while an entry ran: that entry is counted as interrupted, never run twice.
    if (progress.taking) progress = countedEntry(progress, progress.taking, { skipped: 'interrupted' });
    const keys = this.keys(replay.spec, progress.cursor, BATCH);
    for (const key of keys) {
      if (this.data.replays.get(id)?.state !== 'running') break;
      this.data.replays.save(id, { ...progress, taking: key });
      const result = await this.replayEntry(scope.service_id, scope.ticket_id, key.k, replay);
      progress = countedEntry(progress, key, result);
      this.data.replays.save(id, progress);
    }
    if (this.data.replays.get(id)?.state !== 'running') {
      this.data.jobs.delete(job.id);
      return;
    }
    const now = Date.now();
    if (keys.length < BATCH) {
      const { next_at: _, ...ended } = progress;
      this.data.replays.save(id, ended, { state: 'finished', at: now });
      this.data.jobs.delete(job.id);
      return;
    }
    this.data.replays.save(id, { ...progress, next_at: now + stepIntervalMs(replay.spec.per_minute) });
    this.data.jobs.reschedule(job.id, now + stepIntervalMs(replay.spec.per_minute));
  }

  private count(spec: ReplaySpec): { matched: number; unindexed: number } {
    const { filter, until } = spec;
    if (filter.dead_letters)
      return { matched: this.data.deadLetters.count(filter.from ?? 0, Math.min(filter.to ?? until, until), filter.consume_ids), unindexed: 0 };
    return this.data.log.replayCount(selectionOf(filter, until));
  }

  private keys(spec: ReplaySpec, after: { t: number; k: string } | null, count: number): { t: number; k: string }[] {
    const { filter, until } = spec;
    if (filter.dead_letters) {
      return this.data.deadLetters
        .keysAfter(filter.from ?? 0, Math.min(filter.to ?? until, until), after, count, filter.consume_ids)
        .map((row) => ({ t: row.failed_at, k: row.consume_id }));
    }
    return this.data.log.replayKeys(selectionOf(filter, until), after, count).map((row) => ({ t: row.timestamp, k: row.log_key }));
  }

  /**
   * One entry: a dead letter goes on from its failed action (unless the replay is full); another entry runs
   * whole, and only when none of its actions with an effect succeeded (unless full). A replay that succeeds
   * takes the entry off the dead letters.
   */
  private async replayEntry(serviceId: string, ticketId: string, consumeId: string, replay: BulkReplay): Promise<EntryResult> {
    const { spec } = replay;
    const dead = this.data.deadLetters.stateOf(consumeId);
    const entry = await this.data.log.entry(consumeId);
    if (!entry) return { skipped: 'gone' };
    if (!dead || spec.full) {
      const skipped = skipOf({ code: entry.body.code, actions: entry.body.actions }, spec);
      if (skipped) return { skipped };
    }
    if (this.data.remaining() === 0) return { skipped: 'no_count_left' };
    let input: ConsumeInput;
    try {
      input = await replayOfEntry(this.env, serviceId, ticketId, consumeId, entry.body.request ?? null, 'consume');
    } catch {
      return { skipped: 'not_kept' };
    }
    const resume = dead && !spec.full ? { resume: dead } : {};
    const outcome = await this.consume({ ...input, replay: { ...(input.replay as NonNullable<ConsumeInput['replay']>), ...resume, batch: replay.id } });
    if (!outcome.ok) return { ok: false, consume_id: consumeId, code: outcome.error.code };
    if (dead) this.data.deadLetters.delete(consumeId);
    return { ok: true };
  }
}
