/**
 * Extension (issue 36 item 3): the project's dead letters, queued requests sent with retry that failed after
 * their last attempt, newest first, with why each failed; filtered by reason, a page at a time.
 */
import { useEffect, useState } from 'preact/hooks';
import { DEAD_LETTER_REASONS, type DeadLetterReason } from '../../../schemas/dead-letters';
import type { DeadLetter } from '../../../schemas/forward-rules';
import { errorText, listDeadLetters, type OwnerApi } from '../api';
import { when } from './when';

const REASON_WORDS: Record<DeadLetterReason, string> = {
  retry_window_ended: 'still 429/503 when its retry window ended',
  error_status: 'answered 408 or 5xx',
  timeout: 'timed out',
  request_failed: 'no answer (network, too large, interrupted)',
};

const lastOf = (item: DeadLetter) => (item.status_code !== undefined ? String(item.status_code) : (item.error?.code ?? ''));

export function DeadLetters({ api }: { api: OwnerApi }) {
  const [reason, setReason] = useState<DeadLetterReason | ''>('');
  const [list, setList] = useState<DeadLetter[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const read = (startKey: string | null) =>
    listDeadLetters(api, reason === '' ? {} : { reason }, startKey)
      .then((page) => {
        setList((shown) => [...(startKey && shown ? shown : []), ...page.list]);
        setNext(page.endOfList === false && page.startKey ? page.startKey : null);
        setFailure(null);
      })
      .catch((err) => setFailure(errorText(err)));
  useEffect(() => void read(null), [reason]);
  return (
    <section class="dead-letters" aria-labelledby="dead-letters-title">
      <h3 id="dead-letters-title">Dead letters</h3>
      <p class="hint">
        Queued requests sent with retry that failed after their last attempt, newest first. A 5xx, a timeout or a network error is never sent again: the
        destination may have acted.
      </p>
      <div class="field">
        <label for="dead-letter-reason">Reason</label>
        <select id="dead-letter-reason" value={reason} onChange={(e) => setReason((e.currentTarget as HTMLSelectElement).value as DeadLetterReason | '')}>
          <option value="">all</option>
          {DEAD_LETTER_REASONS.map((option) => (
            <option value={option}>{REASON_WORDS[option]}</option>
          ))}
        </select>
      </div>
      {failure && (
        <p class="status error" role="alert">
          {failure}
        </p>
      )}
      {list && list.length === 0 && <p class="hint">No dead letter.</p>}
      {list && list.length > 0 && (
        <table aria-label="Dead letters">
          <thead>
            <tr>
              <th>Failed</th>
              <th>Why</th>
              <th>Last status</th>
              <th>Attempts</th>
              <th>Caller</th>
              <th>Request</th>
            </tr>
          </thead>
          <tbody>
            {list.map((item) => (
              <tr key={item.forward?.full_id ?? item.id} data-id={item.id}>
                <td>{when(item.failed_at)}</td>
                <td>{REASON_WORDS[item.reason]}</td>
                <td>{lastOf(item)}</td>
                <td>{item.attempts}</td>
                <td>{item.forward?.caller}</td>
                <td>
                  <code>{item.what}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={() => void read(next)}>
          More
        </button>
      )}
      <button type="button" onClick={() => void read(null)}>
        Refresh
      </button>
    </section>
  );
}
