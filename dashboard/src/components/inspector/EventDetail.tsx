/**
 * The inspector's detail pane: one consumption in full (GET …/events/{log_key}): the request as received,
 * each action's sent and received with its timing, the answer; copy as curl; Replay and Re-check.
 */
import { useEffect, useState } from 'preact/hooks';
import type { LogEvent, LogEventDetail } from '../../../../schemas/listings';
import { errorText, type OwnerApi } from '../../api';
import { curlOf } from '../../logic/curl';
import { when } from '../when';
import { JsonView } from './JsonView';

const bodyOf = (request: NonNullable<LogEventDetail['request']>): unknown =>
  'text' in request.body
    ? request.body.text
    : 'base64' in request.body
      ? `(binary, base64) ${request.body.base64}`
      : `(${request.body.omitted_bytes} bytes, not kept)`;

export function EventDetail({ api, ticketId, event, onClose }: { api: OwnerApi; ticketId: string; event: LogEvent; onClose(): void }) {
  const [detail, setDetail] = useState<LogEventDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<{ what: string; body: unknown; error?: boolean } | null>(null);
  const [copied, setCopied] = useState('');
  const ticket = encodeURIComponent(ticketId);
  useEffect(() => {
    setDetail(null);
    setAnswer(null);
    setCopied('');
    api
      .project<LogEventDetail>('GET', `/tickets/${ticket}/events/${encodeURIComponent(event.log_key)}`)
      .then(setDetail)
      .catch((err) => setError(errorText(err)));
  }, [event.log_key]);

  const again = async (kind: 'recheck' | 'replay') => {
    const what = kind === 'recheck' ? 'Re-check (dry run)' : 'Replay';
    setAnswer(null);
    try {
      setAnswer({ what, body: await api.project<unknown>('POST', `/tickets/${ticket}/log/${encodeURIComponent(event.consume_id)}/${kind}`, {}) });
    } catch (err) {
      setAnswer({ what, body: errorText(err), error: true });
    }
  };
  const copyCurl = async () => {
    if (!detail?.request) return;
    const text = curlOf(detail.request, `${location.origin}/tp/${api.serviceId}/${ticketId}`);
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied a curl command (credentials left out).');
    } catch (err) {
      setCopied(`Could not copy: ${errorText(err)}`);
    }
  };

  return (
    <section class="event-detail" aria-label={`Consumption ${event.consume_id}`}>
      <div class="title-bar">
        <h3>
          <code>{event.consume_id}</code> <span class={`badge badge-${event.outcome}`}>{event.outcome === 'check' ? 'dry run' : event.outcome}</span>
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="hint">
        {when(event.time)} · {event.consumer}
        {event.duration_ms !== undefined && ` · ${event.duration_ms} ms`}
      </p>
      <div class="buttons">
        {event.outcome !== 'check' && !event.sampled && (
          <>
            <button type="button" onClick={() => again('replay')}>
              Replay
            </button>
            <button type="button" onClick={() => again('recheck')}>
              Re-check
            </button>
          </>
        )}
        {detail?.request && (
          <button type="button" class="copy-curl" onClick={copyCurl}>
            Copy as curl
          </button>
        )}
      </div>
      {copied && (
        <p class="hint copied" role="status">
          {copied}
        </p>
      )}
      {answer && (
        <div class={answer.error ? 'answer error' : 'answer'} role="status">
          <h4>{answer.what} answered</h4>
          <JsonView value={answer.body} class="answer-body" />
        </div>
      )}
      {error && <p class="error">{error}</p>}
      {detail === null ? (
        !error && <p class="hint">Reading…</p>
      ) : (
        <>
          <h4>Request as received</h4>
          {detail.request === null ? (
            <p class="hint">None kept (a dry run, or an entry that kept none).</p>
          ) : (
            <div class="event-request">
              <p>
                <code>
                  {detail.request.method} {(detail.request.url ?? '') + detail.request.search}
                </code>
              </p>
              <h5>Headers</h5>
              <JsonView value={detail.request.headers} class="event-headers" />
              <h5>Body</h5>
              <JsonView value={bodyOf(detail.request)} class="event-body" />
            </div>
          )}
          <h4>Actions</h4>
          {detail.actions.length === 0 ? (
            <p class="hint">No action ran.</p>
          ) : (
            <ol class="event-actions">
              {detail.actions.map((action) => (
                <li key={action.seq} class="event-action" data-act={action.act}>
                  <p>
                    <strong>{action.act}</strong> at <code>{action.path}</code>, {action.attempts} attempt{action.attempts === 1 ? '' : 's'}
                    {action.ms !== undefined && `, ${action.ms} ms`}
                  </p>
                  {action.sent !== undefined && (
                    <>
                      <h5>Sent</h5>
                      <JsonView value={action.sent} class="sent" />
                    </>
                  )}
                  {action.received !== undefined && (
                    <>
                      <h5>Received</h5>
                      <JsonView value={action.received} class="received" />
                    </>
                  )}
                  {action.error !== undefined && (
                    <>
                      <h5>Error</h5>
                      <JsonView value={action.error} class="error" />
                    </>
                  )}
                </li>
              ))}
            </ol>
          )}
          <h4>Answer</h4>
          <JsonView value={detail.answer} class="event-answer" />
        </>
      )}
    </section>
  );
}
