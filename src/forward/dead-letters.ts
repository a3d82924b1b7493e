/**
 * Dead letters (issue 36 item 3, an extension): a queued request sent with `retry` that settled without
 * success after its last attempt, kept marked in its caller's history row with why. Only failures a later
 * delivery could mend count: the destination still answered 429 or 503 when `within` ran out, it answered
 * 408 or 5xx, the send timed out or failed (network, an answer too large, a runner cut off). A request the
 * destination refused (another 4xx), one refused before sending (its key, its destination) and one cancelled
 * or expired are not dead letters; a request without `retry` never is (the spec's behaviour).
 */
import { BACK_PRESSURE_STATUSES } from '../outbound/back-pressure';
import type { DeadLetterReason } from '../../schemas/dead-letters';
import { type DeadLetter, fullRequestId } from '../../schemas/forward-rules';
import type { ForwardRecord } from './record';
import type { OwnerHistoryItem } from './owner-history';

/** The status a failure by status tells (408 or 5xx): the destination did not do what was asked. */
const isErrorStatus = (code: number) => code === 408 || code >= 500;

/** Why the settled request is a dead letter; undefined when it is not (a success, or a failure no resend could mend). */
export function deadLetterReason(record: ForwardRecord): DeadLetterReason | undefined {
  if (record.status !== 'resolved' && record.status !== 'failed') return undefined;
  const statusCode = record.status_code ?? record.error?.status_code;
  if (statusCode !== undefined) {
    if (BACK_PRESSURE_STATUSES.has(statusCode)) return 'retry_window_ended';
    return isErrorStatus(statusCode) ? 'error_status' : undefined;
  }
  if (record.status === 'resolved') return undefined;
  if (record.error?.code === 'TIMEOUT') return 'timeout';
  return record.error?.code === 'REQUEST_FAILED' ? 'request_failed' : undefined;
}

/** The record as it is kept: marked with its reason when it is the last state of a request sent with retry that failed. */
export function withDeadLetter(record: ForwardRecord, sentWithRetry: boolean): ForwardRecord {
  const reason = sentWithRetry ? deadLetterReason(record) : undefined;
  if (reason === undefined) return record;
  return { ...record, dead_letter: reason };
}

/** A history item marked as a dead letter, as the dead-letter listing answers it. */
export function deadLetterItemOf(item: OwnerHistoryItem): DeadLetter {
  const waits = item.attempts ?? [];
  const statusCode = item.status_code ?? item.error?.status_code;
  return {
    id: item.id,
    kind: 'forward',
    what: `${item.method} ${item.url}`,
    created: item.created,
    failed_at: item.updated,
    reason: item.dead_letter as DeadLetterReason,
    ...(statusCode !== undefined ? { status_code: statusCode } : {}),
    ...(item.error ? { error: { code: item.error.code, message: item.error.message } } : {}),
    attempts: waits.filter((wait) => wait.waited !== 'circuit').length + 1,
    waits,
    forward: {
      caller: item.caller,
      method: item.method,
      url: item.url,
      queue_name: item.queue_name,
      full_id: fullRequestId({ method: item.method, url: item.url, id: item.id }),
    },
  };
}
