import type { RequestAddress } from '../../schemas/forward-rules';
import type { HistoryOwner } from '../../src/forward/history';
import type { JobTable, NoPayload } from '../job-table';

/** ForwardQueueDO's job kinds and the payload each carries (stored as JSON in its job table). */
export type ForwardJobs = {
  /** One queue's runner: a step sends the queue's oldest waiting request. */
  run: { queue: string };
  'export-history': NoPayload;
  expire: RequestAddress;
  'move-stream': { seq: number };
  'drop-stream': { key: string };
  'compact-history': HistoryOwner;
  'sweep-history': HistoryOwner;
  /** The object's paused destinations, written to D1 for the owner's listing (src/forward/destination-report.ts). */
  'report-circuits': HistoryOwner;
  /** Extension (issue 36 item 3): the bytes of the caller's dead letters, written to D1's project_storage (dead-letter-report.ts). */
  'report-dead-letters': HistoryOwner;
  /** Extension (issue 37 item 1): held metric counts to storage; pending ones to D1 (forward-metrics.ts). */
  'flush-metrics': NoPayload;
  'report-metrics': HistoryOwner;
};

export type ForwardJobTable = JobTable<ForwardJobs>;
