/**
 * `svc replay` (extension, issue 36 item 4), the pure part: the request a command line asks for (times as
 * ms or ISO dates, a list of consume_ids), and a bulk replay's progress as a line.
 */
import type { BulkReplay } from '../../schemas/listings';
import { MAX_PER_MINUTE } from '../../schemas/bulk-replays';
import { usageError } from './errors';

export interface ReplayOptions {
  deadLetters?: boolean;
  from?: string;
  to?: string;
  outcome?: string;
  code?: string;
  ids?: string;
  perMinute?: string;
  full?: boolean;
  dryRun?: boolean;
}

/** A time given as milliseconds since the epoch or as an ISO date (2026-11-29, 2026-11-29T10:00:00Z). */
export function timeOf(raw: string, flag: string): number {
  if (/^\d+$/.test(raw)) return Number(raw);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(ms)) throw usageError(`${flag} must be milliseconds since the epoch or an ISO date such as 2026-11-29T10:00:00Z, not "${raw}".`);
  return ms;
}

/** The body of startBulkReplay for the options given; the service judges the filter itself. */
export function replayRequest(options: ReplayOptions): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (options.ids !== undefined)
    filter.consume_ids = options.ids
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
  if (options.from !== undefined) filter.from = timeOf(options.from, '--from');
  if (options.to !== undefined) filter.to = timeOf(options.to, '--to');
  if (options.outcome !== undefined) filter.outcome = options.outcome;
  if (options.code !== undefined) filter.code = options.code;
  if (options.deadLetters) filter.dead_letters = true;
  const body: Record<string, unknown> = { filter };
  if (options.dryRun) body.dry_run = true;
  if (options.full) body.full = true;
  if (options.perMinute !== undefined) {
    const n = /^\d+$/.test(options.perMinute) ? Number(options.perMinute) : NaN;
    if (!(n >= 1 && n <= MAX_PER_MINUTE)) throw usageError(`--per-minute must be a whole number from 1 to ${MAX_PER_MINUTE}, not "${options.perMinute}".`);
    body.per_minute = n;
  }
  return body;
}

/** A replay as one line: id, state, done of total, the outcomes, the pace and when it started (UTC, seconds). */
export function formatReplay(replay: BulkReplay): string {
  const { done, succeeded, failed, skipped, skipped_by } = replay.progress;
  const why = Object.entries(skipped_by)
    .map(([reason, n]) => `${reason}=${n}`)
    .join(',');
  const started = new Date(replay.created_at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const full = replay.full ? ' full' : '';
  return `replay=${replay.id}  ${replay.state}  done=${done}/${replay.total}  succeeded=${succeeded}  failed=${failed}  skipped=${skipped}${why ? ` (${why})` : ''}  per_minute=${replay.per_minute}${full}  started ${started}`;
}
