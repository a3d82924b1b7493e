/**
 * The event inspector's search of a ticket's log (issue 37 item 4, an extension), run in the ticket's
 * object: the index answers the filters on outcome, error code and time; a value search reads the bodies
 * newest first, from SQLite or from their R2 segments. A page's work is bounded: at most
 * SEARCH_SEGMENT_READS segment reads (each an R2 get, a subrequest: the Free plan allows 50 per invocation)
 * and SEARCH_INDEX_ROWS index rows, whatever the log holds. A page that stops short says where, so the next
 * one goes on from there, even when it found nothing (docs/decisions.md).
 */
import type { LogSegments } from './log-segments';
import { LOG_CLASS, type IndexFacts, type LogBody } from './log-body';
import { eventOf, requestMatches, type LogEvent, type ValueSearch } from './log-search-match';

/** R2 segment reads one page makes at most: 20 of the Free plan's 50 subrequests, at most 40 MB of bodies read (2 MB a segment). */
export const SEARCH_SEGMENT_READS = 20;
/** Index rows one page walks at most (SQLite reads in the object, no subrequest). */
export const SEARCH_INDEX_ROWS = 5_000;
/** Index rows read per statement, with the bodies SQLite still holds. */
const CHUNK = 50;
/** Segments held while a page walks: one per outcome class, whose walks interleave by time. */
const HELD_SEGMENTS = 3;

export interface LogSearchRequest {
  from: number;
  to: number;
  outcome?: keyof typeof LOG_CLASS;
  code?: string;
  value?: ValueSearch;
  /** The last entry the previous page walked (or listed). */
  after: { t: number; k: string } | null;
  count: number;
}

export interface LogSearchPage {
  events: LogEvent[];
  /** Where the walk stopped short of the log's end with fewer than `count` found (a bound reached); null when it ended or filled the page. */
  stoppedAt: { t: number; k: string } | null;
  /** Index rows walked, and segments read, by this page. */
  scanned: number;
  segmentReads: number;
}

type ScanRow = IndexFacts & { seg: number | null; code: string | null; body: string | null };

/** The index's rows after the cursor, newest first: one indexed walk per class, merged (as TicketLog.page reads). */
function indexRows(sql: SqlStorage, request: LogSearchRequest, after: { t: number; k: string } | null, count: number): ScanRow[] {
  // Successes have no code: a code search walks the failures and dry runs only.
  const classes = request.outcome ? [LOG_CLASS[request.outcome]] : Object.values(LOG_CLASS).filter((cls) => request.code === undefined || cls !== LOG_CLASS.ok);
  const cursor = after ? 'AND (timestamp < ? OR (timestamp = ? AND log_key < ?))' : '';
  // An entry logged before codes were indexed has none: it is judged by its body (successes never have one).
  const code = request.code !== undefined ? 'AND (code = ? OR (code IS NULL AND class <> 0))' : '';
  const part = `SELECT * FROM (SELECT log_key, timestamp, class, seg, code FROM log
                 WHERE class = ? AND timestamp BETWEEN ? AND ? ${cursor} ${code}
                 ORDER BY timestamp DESC, log_key DESC LIMIT ?)`;
  const args = classes.flatMap((cls) => [
    cls,
    request.from,
    request.to,
    ...(after ? [after.t, after.t, after.k] : []),
    ...(request.code !== undefined ? [request.code] : []),
    count,
  ]);
  return sql
    .exec<ScanRow>(
      `SELECT p.log_key, p.timestamp, p.class, p.seg, p.code, b.body FROM (${classes.map(() => part).join(' UNION ALL ')} ORDER BY timestamp DESC, log_key DESC LIMIT ?) p
       LEFT JOIN log_bodies b ON b.log_key = p.log_key ORDER BY p.timestamp DESC, p.log_key DESC`,
      ...args,
      count,
    )
    .toArray();
}

const passes = (body: LogBody, request: LogSearchRequest): boolean =>
  (request.code === undefined || body.code === request.code) && (request.value === undefined || requestMatches(body, request.value));

/** One page of the search (see the module's comment). */
export async function searchLog(sql: SqlStorage, segments: LogSegments, request: LogSearchRequest): Promise<LogSearchPage> {
  const events: LogEvent[] = [];
  const held = new Map<number, Record<string, LogBody> | undefined>();
  let cursor = request.after;
  let scanned = 0;
  let segmentReads = 0;
  const page = (stoppedAt: { t: number; k: string } | null): LogSearchPage => ({ events, stoppedAt, scanned, segmentReads });

  while (scanned < SEARCH_INDEX_ROWS) {
    const want = Math.min(CHUNK, SEARCH_INDEX_ROWS - scanned);
    const rows = indexRows(sql, request, cursor, want);
    for (const row of rows) {
      let body: LogBody | undefined;
      if (row.body !== null) body = JSON.parse(row.body) as LogBody;
      else if (row.seg !== null) {
        if (!held.has(row.seg)) {
          if (segmentReads >= SEARCH_SEGMENT_READS) return page(cursor);
          segmentReads++;
          held.set(row.seg, await segments.read(row.seg));
          if (held.size > HELD_SEGMENTS) held.delete(held.keys().next().value as number);
        }
        // A segment a lifecycle rule removed: its entries are gone.
        body = held.get(row.seg)?.[row.log_key];
      }
      cursor = { t: row.timestamp, k: row.log_key };
      scanned++;
      if (body && passes(body, request)) {
        events.push(eventOf(row, body));
        if (events.length >= request.count) return page(null);
      }
    }
    if (rows.length < want) return page(null);
  }
  return page(cursor);
}
