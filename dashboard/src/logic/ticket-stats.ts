/** The tickets list's columns read off the first page of a ticket's log (OwnerLogRow, newest first). */
import type { OwnerLogRow } from '../../../schemas/listings';

/** How many log rows the tickets list reads per ticket (docs/dashboard.md). */
export const STATS_ROWS = 50;

export interface TicketStats {
  /** ms of the newest consumption (dry runs left out), or null when none is in the rows. */
  lastConsumption: number | null;
  /** Failed consumptions among the rows' consumptions (dry runs left out). */
  failed: number;
  consumptions: number;
}

export function ticketStats(rows: readonly OwnerLogRow[]): TicketStats {
  const consumptions = rows.filter((row) => !row.check);
  return {
    lastConsumption: consumptions.reduce<number | null>((newest, row) => (newest === null || row.timestamp > newest ? row.timestamp : newest), null),
    failed: consumptions.filter((row) => row.failed).length,
    consumptions: consumptions.length,
  };
}

export function failureRateText(stats: TicketStats): string {
  if (stats.consumptions === 0) return 'no consumptions';
  return `${Math.round((100 * stats.failed) / stats.consumptions)}% of ${stats.consumptions}`;
}

export type Outcome = 'ok' | 'failed' | 'check';

export const outcomeOf = (row: Pick<OwnerLogRow, 'failed' | 'check'>): Outcome => (row.check ? 'check' : row.failed ? 'failed' : 'ok');

/**
 * A run after resp that its ticket's retry schedule tried more than once (extension): the attempts so far
 * and, while it waits, when the next starts; undefined for any other row.
 */
export function scheduleFacts(row: Pick<OwnerLogRow, 'description' | 'next_attempt_at'>): { attempts: number; nextAt?: number } | undefined {
  let total: unknown;
  try {
    total = (JSON.parse(row.description) as { continuation?: { attempts_total?: unknown } }).continuation?.attempts_total;
  } catch {
    total = undefined;
  }
  const attempts = typeof total === 'number' ? total : 0;
  if (row.next_attempt_at === undefined && attempts < 2) return undefined;
  return { attempts, ...(row.next_attempt_at !== undefined ? { nextAt: row.next_attempt_at } : {}) };
}
