/**
 * Failures cannot fill storage (issue 26 item 2, docs/limits.md "Failed consumptions and dry runs"):
 * per ticket and minute, failed consumptions and dry runs are kept whole up to a count per kind and a
 * byte budget; past them each kind is counted in one summary entry. Pure: no I/O.
 */
import { fitForLog } from '../bytes/log-size';

/** Whole entries kept per kind (outcome class, code, field) per ticket per minute. */
export const SAMPLED_WHOLE_PER_KIND = 200;
/** Bytes of whole failed or dry-run entries (body and ENTRY_OVERHEAD_BYTES each) per ticket per minute. */
export const SAMPLED_BYTES_PER_MINUTE = 512 * 1024;
/** Kinds with a count of their own per minute; later ones count together as 'other codes'. */
export const SAMPLED_KINDS_PER_MINUTE = 16;
/** What a stored entry takes beside its body: its key twice, its time, class and place (counted, not measured). */
export const ENTRY_OVERHEAD_BYTES = 160;
/** A summary's example is cut to this; the whole summary body stays under SUMMARY_MAX_BYTES. */
const EXAMPLE_MAX_CHARS = 2_048;
export const SUMMARY_MAX_BYTES = 4_096;
/** The most one minute of failures and dry runs can add to a ticket's stored log (each 'other' of two classes has a summary too). */
export const FAILURE_LOG_BYTES_PER_MINUTE = SAMPLED_BYTES_PER_MINUTE + (SAMPLED_KINDS_PER_MINUTE + 2) * (SUMMARY_MAX_BYTES + ENTRY_OVERHEAD_BYTES);

export const MINUTE_MS = 60_000;

/** What sampling reads of a log row. */
export interface SampledRow {
  log_key: string;
  consume_id: string;
  user_id: string;
  is_check: boolean;
  failed: boolean;
  code: string | null;
  timestamp: number;
  description: Record<string, unknown>;
}

export interface SampleKind {
  key: string;
  code: string | null;
  field?: string;
  check: boolean;
}

const outcomeOf = (row: SampledRow): Record<string, unknown> => {
  const outcome = row.description.outcome;
  return outcome && typeof outcome === 'object' ? (outcome as Record<string, unknown>) : {};
};

/** The kind of a failure or dry run: its code and what failed (the condition's field, or the action's path). */
export function kindOf(row: SampledRow): SampleKind {
  const outcome = outcomeOf(row);
  const detail = outcome.detail && typeof outcome.detail === 'object' ? (outcome.detail as Record<string, unknown>) : {};
  const named = typeof detail.field === 'string' ? detail.field : typeof outcome.action === 'string' ? outcome.action : undefined;
  const field = named?.slice(0, 64);
  const code = row.failed ? (row.code ?? 'FAILED').slice(0, 64) : null;
  return { key: [row.is_check ? 'check' : 'failed', code ?? 'passed', field ?? ''].join('|'), code, ...(field ? { field } : {}), check: row.is_check };
}

/** The kind that counts every kind past the first SAMPLED_KINDS_PER_MINUTE of a minute. */
export const otherKind = (check: boolean): SampleKind => ({ key: `${check ? 'check' : 'failed'}|other`, code: 'other', check });

/** "N more failed with CONDITION_FAILED (signature) in this minute", and the dry-run forms. */
export function summaryText(kind: SampleKind, more: number): string {
  const what =
    kind.code === null ? 'passed' : kind.code === 'other' ? 'failed with other codes' : `failed with ${kind.code}${kind.field ? ` (${kind.field})` : ''}`;
  return `${more} more ${kind.check ? 'dry runs ' : ''}${what} in this minute`;
}

/** The description of a summary entry: the example's outcome, and what was counted (description.sampled). */
export function summaryDescription(kind: SampleKind, first: SampledRow, more: number): Record<string, unknown> {
  const minute = Math.floor(first.timestamp / MINUTE_MS) * MINUTE_MS;
  const example = fitForLog({ consume_id: first.consume_id, user_id: first.user_id, timestamp: first.timestamp, outcome: outcomeOf(first) }, EXAMPLE_MAX_CHARS);
  return {
    outcome: kind.code === null ? { ok: true } : { ok: false, code: kind.code, message: summaryText(kind, more) },
    ...(kind.check ? { check: true } : {}),
    sampled: {
      more,
      text: summaryText(kind, more),
      code: kind.code,
      ...(kind.field ? { field: kind.field } : {}),
      minute_from: minute,
      minute_to: minute + MINUTE_MS - 1,
      last_at: first.timestamp,
      example,
    },
  };
}
