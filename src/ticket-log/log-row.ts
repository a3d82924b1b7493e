import type { KeptRequest } from './kept-request';

/** One consumption's (or dry run's) log entry as the consumption path writes it (src/consume/store.ts enqueueLog). */
export interface LogRow {
  service_id: string;
  ticket_id: string;
  log_key: string;
  consume_id: string;
  user_id: string;
  signed: boolean;
  is_check: boolean;
  failed: boolean;
  code: string | null;
  timestamp: number;
  description: Record<string, unknown>;
  /** What the consumption received, kept for a replay (not on a dry run). */
  request?: KeptRequest;
  /** From its arrival to its answer, ms (extension: the inspector and metrics show it). */
  duration_ms?: number;
  /** The consume_id this consumption or dry run replays. */
  replay_of?: string;
}
