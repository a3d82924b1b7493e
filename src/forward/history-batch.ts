/**
 * History rows of direct requests, written to D1 in batches: the rows of requests that settle within
 * BATCH_MS of each other share one round trip instead of one each. Every request keeps the flush its row
 * rides on alive (waitUntil), so no row is left behind when the isolate goes idle.
 */
const BATCH_MS = 20;
/** Statements per D1 batch. */
const MAX_BATCH = 100;

let waiting: D1PreparedStatement[] = [];
let flush: Promise<void> | undefined;

async function writeWaiting(db: D1Database): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, BATCH_MS));
  const rows = waiting;
  waiting = [];
  flush = undefined;
  for (let i = 0; i < rows.length; i += MAX_BATCH) {
    try {
      await db.batch(rows.slice(i, i + MAX_BATCH));
    } catch (error) {
      console.error('forward history write failed', error instanceof Error ? error.message : String(error));
    }
  }
}

export function writeHistorySoon(db: D1Database, row: D1PreparedStatement, waitUntil: (promise: Promise<unknown>) => void): void {
  waiting.push(row);
  flush ??= writeWaiting(db);
  waitUntil(flush);
}
