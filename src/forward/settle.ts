/** How a running request settles: its record once the send's outcome is known. */
import type { ForwardRecord } from './record';
import type { ForwardOutcome, StreamOutcome } from './send';

/** A buffered answer is kept as the request's response; a failure as its error. */
export function settled(running: ForwardRecord, outcome: ForwardOutcome): ForwardRecord {
  if (!outcome.ok) return { ...running, status: 'failed', updated: Date.now(), error: outcome.error };
  return {
    ...running,
    status: 'resolved',
    updated: outcome.responded,
    responded: outcome.responded,
    status_code: outcome.statusCode,
    response_body: outcome.kept,
  };
}

/** A streamed request settles with a status and no body; a failure after the answer began tells how many pieces arrived. */
export function settledStream(running: ForwardRecord, outcome: StreamOutcome, chunks: number): ForwardRecord {
  if (outcome.ok) return { ...running, status: 'resolved', updated: outcome.responded, responded: outcome.responded, status_code: outcome.statusCode };
  const failed: ForwardRecord = { ...running, status: 'failed', updated: Date.now(), error: outcome.error };
  if (outcome.statusCode === undefined) return failed;
  // An error answer (400 or more) arrived whole and is kept on the error; a body cut short did not.
  const answered = outcome.error.body !== undefined ? { responded: failed.updated } : {};
  return { ...failed, status_code: outcome.statusCode, error: { ...outcome.error, chunks }, ...answered };
}
