/**
 * History rows of direct requests written together (group commit): a request answers once the D1 write
 * holding its row is done, so the listings have it at once (issue 24, item 5), and the rows of requests
 * that settle while a write is on its way go in the next one instead of a write each. The request that
 * starts the writing keeps it alive (waitUntil), so no row is left behind when the isolate goes idle.
 */
import { historyUpsert, type HistoryEntry } from './history';

/** Rows per statement are cut at about this much JSON: a D1 value holds at most 2 MB. */
const STATEMENT_CHARS = 1_000_000;

let waiting: { entry: HistoryEntry; done: () => void }[] = [];
let writing = false;

/** The entries in groups of at most STATEMENT_CHARS of JSON (a larger row goes alone). */
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

async function writeAll(db: D1Database): Promise<void> {
  writing = true;
  try {
    while (waiting.length > 0) {
      const taken = waiting;
      waiting = [];
      try {
        await db.batch(groups(taken.map((t) => t.entry)).map((group) => historyUpsert(db, group)));
      } catch (error) {
        // The request was sent: a failed history write is logged, not answered.
        console.error('forward history write failed', error instanceof Error ? error.message : String(error));
      }
      for (const t of taken) t.done();
    }
  } finally {
    writing = false;
  }
}

/** Resolves once the row is in D1 (or its write failed and was logged). */
export function writeHistoryTogether(db: D1Database, entry: HistoryEntry, waitUntil: (promise: Promise<unknown>) => void): Promise<void> {
  return new Promise<void>((done) => {
    waiting.push({ entry, done });
    if (!writing) waitUntil(writeAll(db));
  });
}
