/**
 * Extension (issue 36 item 3): dead letters, newest first, with why each failed; filtered by reason, a page
 * at a time. Without a ticket: the project's queued requests sent with retry (with their caller). With one:
 * the ticket's runs after the answer whose retry schedule ran out (with the failed action), each replayed
 * from its failed action, replayed whole, or deleted.
 */
import { useEffect, useState } from 'preact/hooks';
import { DEAD_LETTER_REASONS, type DeadLetterReason } from '../../../schemas/dead-letters';
import type { DeadLetter } from '../../../schemas/forward-rules';
import { deleteDeadLetter, errorText, listDeadLetters, replayDeadLetter, type OwnerApi } from '../api';
import { ConfirmDialog } from './ConfirmDialog';
import { StatusLine, type Status } from './StatusLine';
import { when } from './when';

const REASON_WORDS: Record<DeadLetterReason, string> = {
  retry_window_ended: 'still 429/503 when its retry window ended',
  error_status: 'answered 408 or 5xx',
  timeout: 'timed out',
  request_failed: 'no answer (network, too large, interrupted)',
};

const HINTS = {
  forward:
    'Queued requests sent with retry that failed after their last attempt, newest first. A 5xx, a timeout or a network error is never sent again: the destination may have acted.',
  ticket:
    'Runs after the answer whose retry schedule ran out, newest first. Replay goes on from the failed action (the actions that succeeded do not run again); Replay all runs the whole chain.',
};

const lastOf = (item: DeadLetter) => (item.status_code !== undefined ? String(item.status_code) : (item.error?.code ?? ''));

type Asked = { kind: 'full' | 'delete'; item: DeadLetter };

export function DeadLetters({ api, ticketId }: { api: OwnerApi; ticketId?: string }) {
  const [reason, setReason] = useState<DeadLetterReason | ''>('');
  const [list, setList] = useState<DeadLetter[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [asked, setAsked] = useState<Asked | null>(null);
  const forTicket = ticketId !== undefined;
  const read = (startKey: string | null) =>
    listDeadLetters(api, ticketId, reason === '' ? {} : { reason }, startKey)
      .then((page) => {
        setList((shown) => [...(startKey && shown ? shown : []), ...page.list]);
        setNext(page.endOfList === false && page.startKey ? page.startKey : null);
        setFailure(null);
      })
      .catch((err) => setFailure(errorText(err)));
  useEffect(() => void read(null), [reason, ticketId]);

  const replay = async (item: DeadLetter, full: boolean) => {
    setAsked(null);
    try {
      const answer = await replayDeadLetter(api, ticketId ?? '', item.id, full);
      const how = full ? 'whole' : 'from its failed action';
      setStatus(
        answer.ok
          ? { text: `Replayed ${item.id} ${how}: answered ${answer.status}; it is off the list.` }
          : { text: `Replayed ${item.id} ${how}: failed again (${answer.error.code}: ${answer.error.message}); it stays listed.`, error: true },
      );
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
    await read(null);
  };
  const remove = async (item: DeadLetter) => {
    setAsked(null);
    try {
      setStatus({ text: (await deleteDeadLetter(api, ticketId ?? '', item.id)).message });
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
    await read(null);
  };

  const prefix = forTicket ? 'ticket-dead-letter' : 'dead-letter';
  return (
    <section class={forTicket ? 'dead-letters ticket-dead-letters' : 'dead-letters'} aria-labelledby={`${prefix}s-title`}>
      <h3 id={`${prefix}s-title`}>Dead letters</h3>
      <p class="hint">{HINTS[forTicket ? 'ticket' : 'forward']}</p>
      <div class="field">
        <label for={`${prefix}-reason`}>Reason</label>
        <select id={`${prefix}-reason`} value={reason} onChange={(e) => setReason((e.currentTarget as HTMLSelectElement).value as DeadLetterReason | '')}>
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
        <table class="cards" aria-label="Dead letters">
          <thead>
            <tr>
              <th>Failed</th>
              <th>Why</th>
              <th>Last status</th>
              <th>Attempts</th>
              <th>{forTicket ? 'Failed action' : 'Caller'}</th>
              <th>{forTicket ? 'What' : 'Request'}</th>
              {forTicket && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((item) => (
              <tr key={item.forward?.full_id ?? item.id} data-id={item.id}>
                <td data-label="Failed">{when(item.failed_at)}</td>
                <td data-label="Why">{REASON_WORDS[item.reason]}</td>
                <td data-label="Last status">{lastOf(item)}</td>
                <td data-label="Attempts">{item.attempts}</td>
                <td data-label={forTicket ? 'Failed action' : 'Caller'}>
                  {forTicket ? (
                    <span>
                      {item.ticket?.act} at <code>{item.ticket?.path}</code>
                    </span>
                  ) : (
                    item.forward?.caller
                  )}
                </td>
                <td data-label={forTicket ? 'What' : 'Request'}>
                  <code class="forward-url">{item.what}</code>
                </td>
                {forTicket && (
                  <td>
                    <button type="button" onClick={() => void replay(item, false)}>
                      Replay
                    </button>
                    <button type="button" onClick={() => setAsked({ kind: 'full', item })}>
                      Replay all
                    </button>
                    <button type="button" class="danger" onClick={() => setAsked({ kind: 'delete', item })}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="buttons">
        {next && (
          <button type="button" onClick={() => void read(next)}>
            More
          </button>
        )}
        <button type="button" onClick={() => void read(null)}>
          Refresh
        </button>
      </div>
      <StatusLine id={`${prefix}s-status`} status={status} />
      {asked?.kind === 'full' && (
        <ConfirmDialog
          title={`Replay ${asked.item.id} whole?`}
          text="Every action of the ticket runs again, those that already succeeded in this consumption included (a request is sent again, a row written again)."
          confirmLabel="Replay all"
          onConfirm={() => void replay(asked.item, true)}
          onCancel={() => setAsked(null)}
        />
      )}
      {asked?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete the dead letter ${asked.item.id}?`}
          text="It leaves the list and can no longer be replayed from its failed action. Its consumption stays in the log."
          confirmLabel="Delete"
          onConfirm={() => void remove(asked.item)}
          onCancel={() => setAsked(null)}
        />
      )}
    </section>
  );
}
