/** What the log page reads off a ticket's log rows (OwnerLogRow): a row's outcome and its retry schedule. */
import type { OwnerLogRow } from '../../../schemas/listings';

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
