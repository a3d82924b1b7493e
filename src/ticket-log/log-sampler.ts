/**
 * Decides, per failed consumption or dry run, whether the ticket's log keeps it whole or counts it in
 * its kind's summary entry of the minute (src/ticket-log/log-sampling.ts). Its state is one small row, read
 * once and rewritten with each entry kept whole or summary opened. A counted entry writes nothing at
 * once: the counts are held in memory and written to their summaries by `flush()`, which the object's
 * alarm runs within SAMPLING_FLUSH_MS and the log runs before anything reads or changes it, so a flood
 * of failures costs no storage write (and no commit) per request. The per-minute counts (flood_minutes)
 * are what the dashboard and `svc logs` show, beside the refusals (429) the Worker counted.
 */
import type { ActionRow } from '../actions/types';
import { bodyOf, classOf, encodeBody, LOG_CLASS, type LogBody } from './log-body';
import type { LogRow } from './log-row';
import {
  ENTRY_OVERHEAD_BYTES,
  kindOf,
  MINUTE_MS,
  otherKind,
  SAMPLED_BYTES_PER_MINUTE,
  SAMPLED_KINDS_PER_MINUTE,
  SAMPLED_WHOLE_PER_KIND,
  summaryDescription,
  summaryText,
  type SampleKind,
} from './log-sampling';
import { utf8Bytes } from '../../schemas/utf8';
import type { TicketLog } from './ticket-log';

export const LOG_SAMPLING_SCHEMA = `
  CREATE TABLE IF NOT EXISTS log_sampling (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS flood_minutes (minute INTEGER PRIMARY KEY, limited INTEGER NOT NULL DEFAULT 0, sampled INTEGER NOT NULL DEFAULT 0);`;

/** Per-minute counts are kept this long (a day of minutes). */
const FLOOD_MINUTES_KEPT = 1_440;
/**
 * The most a count waits in memory before the alarm writes it to its summary (docs/limits.md): what an
 * object reset (a deploy, a storage error) can lose of the counts, never an entry kept whole.
 */
export const SAMPLING_FLUSH_MS = 1_000;

type KindState = { whole: number; more: number; summary?: string };
type State = { minute: number; bytes: number; kinds: Record<string, KindState> };
/** A kind's counts not yet in its summary: the first such entry, the last one's time, and the count its summary holds. */
type Held = { kind: SampleKind; first: LogRow; last: number; written: number };

/** One minute of a ticket under flood: refusals counted by the Worker, entries counted instead of kept. */
export type FloodMinute = { minute: number; limited: number; sampled: number };

export class LogSampler {
  private state?: State;
  private readonly held = new Map<string, Held>();

  /** `schedule`: asks for a flush within SAMPLING_FLUSH_MS (the object's alarm); called when counts start to be held. */
  constructor(
    private readonly sql: SqlStorage,
    private readonly log: TicketLog,
    private readonly schedule: () => void = () => {},
  ) {
    log.beforeUse(() => this.flush());
  }

  /** Whether the entry is written whole; false: it was counted in its kind's summary instead. Successes always are. */
  keep(row: LogRow, actions: ActionRow[]): boolean {
    const cls = classOf(row);
    if (cls === LOG_CLASS.ok) return true;
    const state = this.current(Math.floor(row.timestamp / MINUTE_MS));
    let kind = kindOf(row);
    if (!state.kinds[kind.key] && Object.keys(state.kinds).length >= SAMPLED_KINDS_PER_MINUTE) kind = otherKind(row.is_check);
    const counts = (state.kinds[kind.key] ??= { whole: 0, more: 0 });
    if (counts.whole < SAMPLED_WHOLE_PER_KIND) {
      const bytes = utf8Bytes(encodeBody(bodyOf(row, actions))) + ENTRY_OVERHEAD_BYTES;
      if (state.bytes + bytes <= SAMPLED_BYTES_PER_MINUTE) {
        counts.whole++;
        state.bytes += bytes;
        this.save(state);
        return true;
      }
    }
    counts.more++;
    if (counts.summary) {
      // Counted in memory; flush() writes it to the summary.
      const held = this.held.get(kind.key);
      if (held) held.last = row.timestamp;
      else {
        if (this.held.size === 0) this.schedule();
        this.held.set(kind.key, { kind, first: row, last: row.timestamp, written: counts.more - 1 });
      }
      return false;
    }
    // The first counted entry of its kind this minute: a new summary.
    counts.more = 1;
    counts.summary = `${row.log_key}:MORE`;
    this.log.openSummary(counts.summary, row.timestamp, cls, summaryBody(kind, row, counts.summary));
    this.save(state);
    return false;
  }

  /** Writes the counts held in memory to their summaries (one statement per kind) and the state; a no-op when none are held. */
  flush(): void {
    const state = this.state;
    if (this.held.size === 0 || !state) return;
    const held = [...this.held.values()];
    this.held.clear();
    for (const { kind, first, last, written } of held) {
      const counts = state.kinds[kind.key];
      if (!counts?.summary || this.log.countInSummary(counts.summary, summaryUpdate(kind, counts.more, last))) continue;
      // Its summary was cleared meanwhile: a new one, from the first entry held, counts those since the last write.
      counts.more -= written;
      counts.summary = `${first.log_key}:MORE`;
      this.log.openSummary(counts.summary, first.timestamp, classOf(first), summaryBody(kind, first, counts.summary));
      this.log.countInSummary(counts.summary, summaryUpdate(kind, counts.more, last));
    }
    this.save(state);
  }

  /** Adds refusals the Worker counted (minute → count) to the per-minute counts. */
  addLimited(counts: [number, number][]): void {
    for (const [minute, n] of counts) {
      this.sql.exec(
        'INSERT INTO flood_minutes (minute, limited) VALUES (?, ?) ON CONFLICT (minute) DO UPDATE SET limited = limited + excluded.limited',
        minute,
        n,
      );
    }
  }

  /** The minutes since `from` (a minute number) with a refusal or a counted entry, oldest first. */
  minutes(from: number): FloodMinute[] {
    const stored = this.sql
      .exec<FloodMinute>('SELECT minute, limited, sampled FROM flood_minutes WHERE minute >= ? ORDER BY minute', from)
      .toArray()
      .map((m) => ({ ...m }));
    const state = this.load();
    const sampled = state ? Object.values(state.kinds).reduce((n, k) => n + k.more, 0) : 0;
    if (state && sampled > 0 && state.minute >= from) {
      const same = stored.find((m) => m.minute === state.minute);
      if (same) same.sampled += sampled;
      else stored.push({ minute: state.minute, limited: 0, sampled });
      stored.sort((a, b) => a.minute - b.minute);
    }
    return stored;
  }

  /** The state of `minute`: a new minute closes the last one's summaries and moves its count to flood_minutes. */
  private current(minute: number): State {
    const state = this.load();
    if (state && state.minute === minute) return state;
    if (state) {
      // The last minute's counts go to its summaries before they close.
      this.flush();
      const summaries = Object.values(state.kinds).flatMap((k) => (k.summary ? [k.summary] : []));
      if (summaries.length > 0) this.log.closeSummaries(summaries);
      const sampled = Object.values(state.kinds).reduce((n, k) => n + k.more, 0);
      if (sampled > 0) {
        this.sql.exec(
          'INSERT INTO flood_minutes (minute, sampled) VALUES (?, ?) ON CONFLICT (minute) DO UPDATE SET sampled = sampled + excluded.sampled',
          state.minute,
          sampled,
        );
      }
      this.sql.exec('DELETE FROM flood_minutes WHERE minute < ?', minute - FLOOD_MINUTES_KEPT);
    }
    this.state = { minute, bytes: 0, kinds: {} };
    return this.state;
  }

  private load(): State | undefined {
    this.state ??= this.sql
      .exec<{ state: string }>('SELECT state FROM log_sampling')
      .toArray()
      .map((r) => JSON.parse(r.state) as State)[0];
    return this.state;
  }

  private save(state: State): void {
    this.sql.exec('INSERT INTO log_sampling (id, state) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state', JSON.stringify(state));
  }
}

/** The JSON paths a further counted entry changes in its summary's body. */
export type SummaryUpdate = [path: string, value: string | number][];

function summaryUpdate(kind: SampleKind, more: number, at: number): SummaryUpdate {
  const text = summaryText(kind, more);
  return [
    ['$.description.sampled.more', more],
    ['$.description.sampled.text', text],
    ['$.description.sampled.last_at', at],
    ...(kind.code !== null ? ([['$.description.outcome.message', text]] as SummaryUpdate) : []),
  ];
}

function summaryBody(kind: SampleKind, first: LogRow, key: string): LogBody {
  return {
    consume_id: key,
    user_id: first.user_id,
    signed: false,
    failed: first.failed,
    code: first.code,
    description: summaryDescription(kind, first, 1),
    actions: [],
  };
}
