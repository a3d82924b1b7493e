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
/** How often a waiting request looks at its entry, and how long before it answers without its row. */
const WATCH_MS = 1;
const WAIT_LIMIT_MS = 5_000;
/**
 * Writes one invocation makes before it leaves the rest to a waiting request's invocation: under steady
 * load the loop never runs dry, and one invocation has 50 D1 queries on the Free plan (a write is up to 2)
 * and its waitUntil 30 s after its answer.
 */
const WRITES_PER_WRITER = 20;
/** A writer this old is taken for one whose invocation ended mid-write (its `finally` never ran). */
const WRITER_LEASE_MS = 10_000;

interface Waiting {
  entry: HistoryEntry;
  written: boolean;
}

let waiting: Waiting[] = [];
let writerSince: number | undefined;

/** Writes what waits, then what arrived meanwhile, until nothing waits or this writer's share is done. */
async function writeAll(db: D1Database): Promise<void> {
  const since = Date.now();
  writerSince = since;
  try {
    await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
    for (let writes = 0; waiting.length > 0 && writes < WRITES_PER_WRITER; writes++) {
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
    if (writerSince === since) writerSince = undefined;
  }
}

/** Starts a writer in this invocation unless a live one is at work. */
function ensureWriter(db: D1Database, waitUntil: (promise: Promise<unknown>) => void): void {
  if (writerSince !== undefined && Date.now() - writerSince < WRITER_LEASE_MS) return;
  waitUntil(writeAll(db));
}

/**
 * Resolves once the row is in D1 (or its write failed and was logged), or after WAIT_LIMIT_MS: the answer
 * then goes without waiting longer, and the row is written alone after it (docs/decisions.md, issue 34).
 */
export async function writeHistoryTogether(db: D1Database, entry: HistoryEntry, waitUntil: (promise: Promise<unknown>) => void): Promise<void> {
  const mine: Waiting = { entry, written: false };
  waiting.push(mine);
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!mine.written) {
    if (Date.now() > deadline) {
      console.error('forward history write took too long; the answer goes first and its row is written after it');
      waitUntil(
        db.batch(historyUpsert(db, [entry])).catch((error) => console.error('forward history write failed', error instanceof Error ? error.message : String(error))),
      );
      return;
    }
    ensureWriter(db, waitUntil);
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  }
}
