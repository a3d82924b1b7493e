import type { ProjectUser } from '../platform/types';

/** What the condition engine sees of an incoming consumption request (spec 4.1 "Request reading"). */
export interface RequestSnapshot {
  method: 'GET' | 'POST';
  /** Parsed JSON, or the text of a non-JSON POST body; {} on GET. */
  body: unknown;
  /** Query string, each value JSON-parsed when it parses (?qty=2 is the number 2); {} when absent. */
  params: Record<string, unknown>;
  /** Header names in lowercase; values are always strings. */
  headers: Record<string, string>;
  ip: string;
  user_agent: string;
  /** Present only on signed-in requests. */
  user?: ProjectUser;
}
