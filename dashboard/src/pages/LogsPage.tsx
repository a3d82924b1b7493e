/**
 * A ticket's log: first the event inspector (components/inspector: the server's search, a table, a detail
 * pane); below it the log as the spec lists it, newest first: paged by startKey, filtered by time range and outcome (both by the
 * server, so paging stays right over any number of rows), a live refresh of the first page; a row opens to its action rows and
 * the request it kept, with Re-check and Replay. Clear log asks first. Below: the ticket's dead letters and
 * bulk replay (extensions).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ActionListingRow, DatabaseResponse, LogClearAnswer, OwnerLogRow } from '../../../schemas/listings';
import { errorText, type OwnerApi } from '../api';
import { BulkReplay } from '../components/BulkReplay';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DeadLetters } from '../components/DeadLetters';
import { FloodPanel } from '../components/FloodPanel';
import { EventInspector } from '../components/inspector/EventInspector';
import { when } from '../components/when';
import { outcomeOf, scheduleFacts, type Outcome } from '../logic/ticket-stats';
import { StatusLine, type Status } from '../components/StatusLine';
import { useListing } from '../components/use-listing';

const LIVE_MS = 3000;
const PAGE = 25;
const OUTCOME_TEXT: Record<Outcome, string> = { ok: 'ok', failed: 'failed', check: 'dry run' };

/** A datetime-local value as ms, or '' for none. */
const msOf = (local: string) => (local ? String(new Date(local).getTime()) : '');

export function LogsPage({ api, ticketId }: { api: OwnerApi; ticketId: string }) {
  const [outcome, setOutcome] = useState<'' | Outcome>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [live, setLive] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [clearing, setClearing] = useState(false);
  const [reads, setReads] = useState(0);

  const query = (startKey: string | null) => {
    const q = new URLSearchParams({ ticket_id: `#${ticketId}#`, limit: String(PAGE) });
    if (from) q.set('from', msOf(from));
    if (to) q.set('to', msOf(to));
    if (outcome) q.set('outcome', outcome);
    if (startKey) q.set('startKey', startKey);
    return `/tickets?${q}`;
  };
  const listing = useListing<OwnerLogRow>((startKey) => api.project<DatabaseResponse<OwnerLogRow>>('GET', query(startKey)));
  const { rows, next } = listing;
  const load = async (startKey: string | null) => {
    try {
      await listing.load(startKey);
      if (!startKey) {
        setStatus({ text: `Read ${new Date().toLocaleTimeString()}.` });
        setReads((n) => n + 1);
      }
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  useEffect(() => void load(null), [from, to, outcome]);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => void load(null), LIVE_MS);
    return () => clearInterval(timer);
  }, [live, from, to, outcome]);

  const clearLog = async () => {
    setClearing(false);
    try {
      const answer = await api.project<LogClearAnswer>('POST', `/tickets/${encodeURIComponent(ticketId)}/clear-log`, {});
      setStatus({ text: answer.message });
      await load(null);
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };

  return (
    <section aria-labelledby="logs-title">
      <div class="title-bar">
        <h2 id="logs-title">Log of {ticketId}</h2>
        <a href={`#/tickets/${encodeURIComponent(ticketId)}/edit`}>Edit ticket</a>
      </div>
      <EventInspector api={api} ticketId={ticketId} />
      <h3>Log rows</h3>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void load(null))}>
        <div class="field">
          <label for="log-outcome">Outcome</label>
          <select id="log-outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value as Outcome | '')}>
            <option value="">all</option>
            <option value="ok">ok</option>
            <option value="failed">failed</option>
            <option value="check">dry run</option>
          </select>
        </div>
        <div class="field">
          <label for="log-from">From</label>
          <input id="log-from" type="datetime-local" step="1" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="log-to">To</label>
          <input id="log-to" type="datetime-local" step="1" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </div>
        <div class="field inline">
          <input id="log-live" type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} />
          <label for="log-live">Live refresh (every {LIVE_MS / 1000} s)</label>
        </div>
        <button type="submit">Refresh</button>
        <button type="button" class="danger" onClick={() => setClearing(true)}>
          Clear log…
        </button>
      </form>
      <FloodPanel api={api} ticketId={ticketId} refresh={reads} />
      <ol class="log" aria-label="Consumptions, newest first">
        {rows.map((row) => (
          <LogRow
            key={row.log_key}
            api={api}
            ticketId={ticketId}
            row={row}
            open={open === row.log_key}
            toggle={() => setOpen(open === row.log_key ? null : row.log_key)}
          />
        ))}
      </ol>
      {rows.length === 0 && <p class="hint">No log rows{outcome ? ` with outcome ${OUTCOME_TEXT[outcome]}` : ''}.</p>}
      {next && (
        <button type="button" onClick={() => load(next)}>
          Older rows
        </button>
      )}
      <StatusLine id="logs-status" status={status} />
      <DeadLetters api={api} ticketId={ticketId} />
      <BulkReplay api={api} ticketId={ticketId} />
      {clearing && (
        <ConfirmDialog
          title={`Clear the log of ${ticketId}?`}
          text="Every log row up to now is deleted, in the background. This cannot be undone."
          confirmLabel="Clear log"
          onConfirm={clearLog}
          onCancel={() => setClearing(false)}
        />
      )}
    </section>
  );
}

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function LogRow({ api, ticketId, row, open, toggle }: { api: OwnerApi; ticketId: string; row: OwnerLogRow; open: boolean; toggle(): void }) {
  const [actions, setActions] = useState<ActionListingRow[] | null>(null);
  const [answer, setAnswer] = useState<{ what: string; body: unknown; error?: boolean } | null>(null);
  const outcome = outcomeOf(row);
  const detailsId = `log-${row.log_key.replace(/[^A-Za-z0-9]/g, '_')}`;
  useEffect(() => {
    if (!open || actions) return;
    api
      .project<DatabaseResponse<ActionListingRow>>('GET', `/tickets?ticket_id=${encodeURIComponent(`@${ticketId}#${row.log_key}#`)}&limit=100`)
      .then((page) => setActions(page.list))
      .catch((err) => setAnswer({ what: 'Action rows', body: errorText(err), error: true }));
  }, [open]);
  const again = async (kind: 'recheck' | 'replay' | 'signature') => {
    setAnswer(null);
    const what = kind === 'recheck' ? 'Re-check' : kind === 'replay' ? 'Replay' : 'Signature diagnosis';
    try {
      const body = await api.project<unknown>('POST', `/tickets/${encodeURIComponent(ticketId)}/log/${encodeURIComponent(row.consume_id)}/${kind}`, {});
      setAnswer({ what, body });
    } catch (err) {
      setAnswer({ what, body: errorText(err), error: true });
    }
  };
  // The description is the logged outcome as JSON: { outcome: { code, detail: { field } } }.
  const signatureFailed = row.failed === true && /"code":\s*"CONDITION_FAILED"/.test(row.description) && /"field":\s*"signature"/.test(row.description);
  const schedule = scheduleFacts(row);
  let description: unknown = row.description;
  try {
    description = JSON.parse(row.description);
  } catch {}
  // Extension (idempotency): a duplicate answered with the first answer names the consumption it repeats.
  const duplicateOf = (description as { duplicate_of?: unknown } | null)?.duplicate_of;
  return (
    <li class={`log-row outcome-${outcome}`} data-consume-id={row.consume_id}>
      <button type="button" class="log-summary" aria-expanded={open} aria-controls={detailsId} onClick={toggle}>
        <span class="outcome">{OUTCOME_TEXT[outcome]}</span> <span>{when(row.timestamp)}</span> <code>{row.consume_id}</code>
        {row.replay_of && <span class="replay"> replay of {row.replay_of}</span>}
        {typeof duplicateOf === 'string' && <span class="duplicate"> duplicate of {duplicateOf}</span>}
        {row.warning && <span class="warning"> {row.warning}</span>}
        {row.sampled && <span class="sampled"> {row.sampled.text}</span>}
        {schedule && (
          <span class="schedule">
            {' '}
            {schedule.attempts} attempt{schedule.attempts === 1 ? '' : 's'}
            {schedule.nextAt !== undefined && <>, retrying: next attempt {when(schedule.nextAt)}</>}
          </span>
        )}
      </button>
      {open && (
        <div id={detailsId} class="log-details">
          <div class="buttons">
            {!row.check && !row.sampled && (
              <>
                <button type="button" onClick={() => again('recheck')}>
                  Re-check
                </button>
                <button type="button" onClick={() => again('replay')}>
                  Replay
                </button>
                {row.request !== undefined && (
                  <button type="button" class={signatureFailed ? 'signature-failed' : undefined} onClick={() => again('signature')}>
                    {signatureFailed ? 'Why did the signature fail?' : 'Check signature'}
                  </button>
                )}
              </>
            )}
          </div>
          {answer && (
            <div class={answer.error ? 'answer error' : 'answer'} role="status">
              <h4>{answer.what} answered</h4>
              <pre class="answer-body">{json(answer.body)}</pre>
            </div>
          )}
          <h4>Consumption</h4>
          <pre class="log-description">{json(description)}</pre>
          <h4>Request kept</h4>
          <pre class="log-request">{row.request === undefined ? 'none kept' : json(row.request)}</pre>
          <h4>Action rows</h4>
          {actions === null ? (
            <p class="hint">Reading…</p>
          ) : actions.length === 0 ? (
            <p class="hint">No action ran.</p>
          ) : (
            <ol class="action-rows">
              {actions.map((action) => (
                <li key={action.seq} class="action-row" data-act={action.act}>
                  <p>
                    <strong>{action.act}</strong> at <code>{action.path}</code>, {action.attempts} attempt{action.attempts === 1 ? '' : 's'}
                    {action.warning ? `, ${action.warning}` : ''}
                  </p>
                  <h5>Sent</h5>
                  <pre class="sent">{action.sent === undefined ? '—' : json(action.sent)}</pre>
                  <h5>Received</h5>
                  <pre class="received">{action.received === undefined ? '—' : json(action.received)}</pre>
                  {action.error !== undefined && (
                    <>
                      <h5>Error</h5>
                      <pre class="error">{json(action.error)}</pre>
                    </>
                  )}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </li>
  );
}
