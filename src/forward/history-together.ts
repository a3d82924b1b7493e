/**
 * History rows of direct requests written together (group commit): a request answers once the D1 write
 * holding its row is done, so the listings have it at once (issue 24, item 5), and the rows of requests
 * that settle while a write is on its way go together in the next one instead of a D1 call each (locally a
 * bare D1 call costs ~650 µs of CPU, a row in a batch ~50 µs; in production it spares D1's one writer).
 *
 * Each waiting request watches its own entry with its own timers: awaiting a promise that another
 * request's I/O settles would resume it in that request's context, where its own I/O fails. The request
 * that starts a write keeps it alive (waitUntil), so no row is left behind when the isolate goes idle.
 */
import { historyUpsert, historyUpsertAll, type HistoryEntry } from './history';

/** The first write waits this long, so requests settling together start in one. */
const GATHER_MS = 1;
/** How often a waiting request looks at its entry, and how long before it writes its row itself. */
const WATCH_MS = 1;
const WAIT_LIMIT_MS = 5_000;
interface Waiting {
  entry: HistoryEntry;
  written: boolean;
}

let waiting: Waiting[] = [];
let writing = false;

/** Writes what waits, then what arrived meanwhile, until nothing waits. */
async function writeAll(db: D1Database): Promise<void> {
  writing = true;
  try {
    await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
    while (waiting.length > 0) {
      const taken = waiting;
      waiting = [];
      try {
        await db.batch(historyUpsertAll(db, taken.map((w) => w.entry)));
      } catch (error) {
        // The requests were sent: a failed history write is logged, not answered.
        console.error('forward history write failed', error instanceof Error ? error.message : String(error));
      }
      for (const w of taken) w.written = true;
    }
  } finally {
    writing = false;
  }
}

/** Resolves once the row is in D1 (or its write failed and was logged). */
export async function writeHistoryTogether(db: D1Database, entry: HistoryEntry, waitUntil: (promise: Promise<unknown>) => void): Promise<void> {
  const mine: Waiting = { entry, written: false };
  waiting.push(mine);
  if (!writing) waitUntil(writeAll(db));
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!mine.written) {
    if (Date.now() > deadline) {
      console.error('forward history write took too long; writing the row alone');
      await db.batch(historyUpsert(db, [entry])).catch(() => undefined);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  }
}
