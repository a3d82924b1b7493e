/**
 * The event inspector's pure parts (issue 37 item 4): whether an entry's request as received has `equals`
 * at a path, and what the inspector lists of an entry. No I/O.
 */
import type { WherePath } from '../../schemas/log-search';
import type { KeptRequest } from './kept-request';
import { LOG_CLASS, type IndexFacts, type LogBody } from './log-body';

/** A value search: where to look in the request as received, and the text the value must read as. */
export interface ValueSearch {
  where: WherePath;
  equals: string;
}

/** The text a JSON value is compared as: a string itself, anything else its JSON text (numbers and booleans as written). */
const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const own = (value: unknown, key: string): unknown => {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) return (value as Record<string, unknown>)[key];
  return undefined;
};

function parsedBody(body: KeptRequest['body']): unknown {
  if (!('text' in body)) return undefined;
  try {
    return JSON.parse(body.text);
  } catch {
    // A form-encoded body is read as its fields (what a ticket's ${body} reads too).
    return Object.fromEntries(new URLSearchParams(body.text));
  }
}

/** The values found at the path (a query parameter may come more than once); [] when there is none. */
export function valuesAt(request: KeptRequest, where: WherePath): string[] {
  const [first] = where.segments;
  if (where.root === 'headers') {
    const name = first.toLowerCase();
    return Object.entries(request.headers).flatMap(([key, value]) => (key.toLowerCase() === name ? [value] : []));
  }
  if (where.root === 'query') return new URLSearchParams(request.search).getAll(first);
  let value: unknown = parsedBody(request.body);
  for (const segment of where.segments) {
    value = own(value, segment);
    if (value === undefined) return [];
  }
  return [textOf(value)];
}

/** Whether the entry's request as received has the value at the path (an entry without a kept request never has). */
export const requestMatches = (body: LogBody, search: ValueSearch): boolean =>
  body.request !== undefined && valuesAt(body.request, search.where).includes(search.equals);

export type EventOutcome = 'ok' | 'failed' | 'check';

const OUTCOME_OF_CLASS: Record<number, EventOutcome> = { [LOG_CLASS.ok]: 'ok', [LOG_CLASS.failed]: 'failed', [LOG_CLASS.check]: 'check' };

/** One entry as the inspector lists it. */
export interface LogEvent {
  consume_id: string;
  log_key: string;
  time: number;
  outcome: EventOutcome;
  /** Who consumed (the user id the log keeps). */
  consumer: string;
  code: string | null;
  /** The whole consumption's duration, when its entry has one. */
  duration_ms?: number;
  actions_run: number;
  /** The first action that failed: its code and place. */
  first_failure?: { code: string; path: string };
  replay_of?: string;
  /** A summary entry counting entries of one kind (issue 26), not one consumption. */
  sampled?: true;
}

const errorCodeOf = (detail: Record<string, unknown>): string | undefined => {
  const error = detail.error as { code?: unknown } | undefined;
  return typeof error?.code === 'string' ? error.code : undefined;
};

export function eventOf(index: IndexFacts, body: LogBody): LogEvent {
  const failing = body.actions.find((a) => errorCodeOf(a.detail) !== undefined);
  return {
    consume_id: body.consume_id,
    log_key: index.log_key,
    time: index.timestamp,
    outcome: OUTCOME_OF_CLASS[index.class] ?? 'ok',
    consumer: body.user_id,
    code: body.code,
    ...(body.duration_ms !== undefined ? { duration_ms: body.duration_ms } : {}),
    actions_run: body.actions.length,
    ...(failing ? { first_failure: { code: errorCodeOf(failing.detail) as string, path: failing.path } } : {}),
    ...(body.replay_of ? { replay_of: body.replay_of } : {}),
    ...(body.description.sampled ? { sampled: true as const } : {}),
  };
}
