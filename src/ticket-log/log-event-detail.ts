/**
 * One consumption as the event inspector's detail pane shows it (issue 37 item 4): the listed facts, the
 * request as received (as the log keeps it: credentials redacted), each action with what it sent and
 * received and its timing, and the answer. Pure: no I/O.
 */
import type { KeptRequest } from './kept-request';
import type { IndexFacts, LogBody } from './log-body';
import { eventOf, type LogEvent } from './log-search-match';

/** One action as it ran. */
export interface EventAction {
  seq: number;
  path: string;
  act: string;
  attempts: number;
  /** How long a req took, when its row has it. */
  ms?: number;
  sent?: unknown;
  received?: unknown;
  error?: unknown;
  warning?: unknown;
}

export interface LogEventDetail {
  event: LogEvent;
  /** The request as received; null on a dry run or an entry that kept none. */
  request: KeptRequest | null;
  actions: EventAction[];
  /** What the consumption answered: its outcome (ok, or the error), the status a resp answered with, and the rest of what the log keeps. */
  answer: Record<string, unknown>;
}

const attemptsOf = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 1);

export function eventDetailOf(index: IndexFacts, body: LogBody): LogEventDetail {
  return {
    event: eventOf(index, body),
    request: body.request ?? null,
    actions: body.actions.map((a) => {
      const { ms, sent, received, error, warning, attempts } = a.detail;
      return {
        seq: a.seq,
        path: a.path,
        act: a.act,
        attempts: attemptsOf(attempts),
        ...(typeof ms === 'number' ? { ms } : {}),
        ...(sent !== undefined ? { sent } : {}),
        ...(received !== undefined ? { received } : {}),
        ...(error !== undefined ? { error } : {}),
        ...(warning !== undefined ? { warning } : {}),
      };
    }),
    answer: body.description,
  };
}
