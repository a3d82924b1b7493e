/**
 * History rows of direct requests, written to D1 in batches: the rows of requests that settle within
 * BATCH_MS of each other go in one statement instead of one round trip each. The request that starts a
 * batch keeps its flush alive (waitUntil), so no row is left behind when the isolate goes idle.
 */
import { historyUpsert, type HistoryEntry } from './history';

const BATCH_MS = 100;
/** Rows per statement are cut at about this much JSON: a D1 value holds at most 2 MB. */
const STATEMENT_CHARS = 1_000_000;

let waiting: HistoryEntry[] = [];
let flush: Promise<void> | undefined;

/** The waiting rows in groups of at most STATEMENT_CHARS of JSON (a larger row goes alone). */
function groups(entries: HistoryEntry[]): HistoryEntry[][] {
  const out: HistoryEntry[][] = [];
  let size = 0;
  for (const entry of entries) {
    const entrySize = (entry.record.request_body?.length ?? 0) + (entry.record.response_body?.length ?? 0) + entry.record.url.length + 200;
    if (out.length === 0 || size + entrySize > STATEMENT_CHARS) {
      out.push([]);
      size = 0;
    }
    out[out.length - 1].push(entry);
    size += entrySize;
  }
  return out;
}

async function writeWaiting(db: D1Database): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, BATCH_MS));
  const entries = waiting;
  waiting = [];
  flush = undefined;
  try {
    await db.batch(groups(entries).map((group) => historyUpsert(db, group)));
  } catch (error) {
    console.error('forward history write failed', error instanceof Error ? error.message : String(error));
  }
}

export function writeHistorySoon(db: D1Database, entry: HistoryEntry, waitUntil: (promise: Promise<unknown>) => void): void {
  waiting.push(entry);
  if (flush) return;
  flush = writeWaiting(db);
  waitUntil(flush);
}
