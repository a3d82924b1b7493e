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
