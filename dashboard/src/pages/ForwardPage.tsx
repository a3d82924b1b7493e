/**
 * Forwarding: the event inspector's search (components/inspector/ForwardInspector.tsx), then every caller's forwarded requests of the project, newest first, paged, with spec 4.3's
 * filters plus caller, stream and a time range (all applied by the service). A request opens to its
 * headers, bodies, status code, timings, the 429s and 503s it waited out (extension: `retry`) and a streamed
 * request's text; everything is rendered as text.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorText, getForwardRequest, listForwardRequests, type ForwardItem, type ForwardRequestView, type OwnerApi } from '../api';
import { when } from '../components/when';
import { DeadLetters } from '../components/DeadLetters';
import { PausedDestinations } from '../components/PausedDestinations';
import { ForwardInspector } from '../components/inspector/ForwardInspector';
import { StatusLine, type Status } from '../components/StatusLine';
import { useListing } from '../components/use-listing';

const PAGE = 25;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
const STATUSES = ['pending', 'running', 'resolved', 'failed'];

/** A datetime-local value as ms, or '' for none. */
const msOf = (local: string) => (local ? String(new Date(local).getTime()) : '');
const text = (value: unknown) => (value === undefined || value === null ? '—' : typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const fullIdOf = (item: ForwardItem) => `${item.method}:${item.id}:${item.url}`;
/** The status a waiting request is waiting out (extension: forwardRequest's retry). */
/** What a waiting request waits for: its destination's open circuit (extension) or the 429/503 it was answered. */
const waitingFor = (item: ForwardItem) => {
  const last = item.attempts?.at(-1);
  return last?.waited === 'circuit' ? 'held: its destination is paused' : `waiting out a ${last?.status_code ?? 429}`;
};
const waitText = (ms: number) => (ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

interface Filters {
  url: string;
  method: string;
  caller: string;
  status: string;
  queue: string;
  queue_exact: boolean;
  stream: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { url: '', method: '', caller: '', status: '', queue: '', queue_exact: false, stream: '', from: '', to: '' };

/** The filters as the listing's query parameters (empty ones left out). */
function queryOf(filters: Filters): Record<string, string> {
  const q: Record<string, string> = { limit: String(PAGE) };
  for (const key of ['url', 'method', 'caller', 'status', 'queue', 'stream'] as const) if (filters[key]) q[key] = filters[key];
  if (filters.queue && filters.queue_exact) q.queue_exact = 'true';
  if (filters.from) q.from = msOf(filters.from);
  if (filters.to) q.to = msOf(filters.to);
  return q;
}

export function ForwardPage({ api }: { api: OwnerApi }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [open, setOpen] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>(null);

  const listing = useListing<ForwardItem>((startKey) => listForwardRequests(api, queryOf(filters), startKey));
  const { rows: items, next } = listing;
  const load = async (startKey: string | null) => {
    try {
      await listing.load(startKey);
      if (!startKey) setStatus({ text: `Read ${new Date().toLocaleTimeString()}.` });
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  useEffect(() => void load(null), [filters]);

  const field = (key: keyof Filters) => ({
    id: `fwd-${key}`,
    value: draft[key] as string,
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });
  const choice = (key: keyof Filters, label: string, options: string[], words: Record<string, string> = {}) => (
    <div class="field">
      <label for={`fwd-${key}`}>{label}</label>
      <select {...field(key)} onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}>
        <option value="">all</option>
        {options.map((option) => (
          <option value={option}>{words[option] ?? option}</option>
        ))}
      </select>
    </div>
  );

  return (
    <section aria-labelledby="forward-title">
      <div class="title-bar">
        <h2 id="forward-title">Forwarding</h2>
      </div>
      <PausedDestinations api={api} />
      <DeadLetters api={api} />
      <ForwardInspector api={api} />
      <p class="hint">Every caller's forwarded requests, newest first. The key is shown as $CLIENT_SECRET wherever it went.</p>
      <form class="filters" aria-label="Filters" onSubmit={(e) => (e.preventDefault(), setFilters({ ...draft }))}>
        <div class="field">
          <label for="fwd-url">URL</label>
          <input type="url" {...field('url')} placeholder="https://…" />
        </div>
        {choice('method', 'Method', METHODS)}
        <div class="field">
          <label for="fwd-caller">Caller</label>
          <input {...field('caller')} placeholder="user id or visitor:…" />
        </div>
        {choice('status', 'Status', STATUSES)}
        <div class="field">
          <label for="fwd-queue">Queue</label>
          <input {...field('queue')} />
        </div>
        <div class="field inline">
          <input
            id="fwd-queue_exact"
            type="checkbox"
            checked={draft.queue_exact}
            onChange={(e) => setDraft({ ...draft, queue_exact: e.currentTarget.checked })}
          />
          <label for="fwd-queue_exact">Exact queue</label>
        </div>
        {choice('stream', 'Streamed', ['true', 'false'], { true: 'streamed only', false: 'not streamed' })}
        <div class="field">
          <label for="fwd-from">From</label>
          <input type="datetime-local" step="1" {...field('from')} />
        </div>
        <div class="field">
          <label for="fwd-to">To</label>
          <input type="datetime-local" step="1" {...field('to')} />
        </div>
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => (setDraft(NO_FILTERS), setFilters({ ...NO_FILTERS }))}>
          Clear
        </button>
      </form>
      <ol class="log forward-list" aria-label="Forwarded requests, newest first">
        {items.map((item) => {
          const fullId = fullIdOf(item);
          return <ForwardRow key={fullId} api={api} item={item} open={open === fullId} toggle={() => setOpen(open === fullId ? null : fullId)} />;
        })}
      </ol>
      {items.length === 0 && <p class="hint">No forwarded request matches.</p>}
      {next && (
        <button type="button" onClick={() => load(next)}>
          Older requests
        </button>
      )}
      <StatusLine id="forward-status" status={status} />
    </section>
  );
}

function ForwardRow({ api, item, open, toggle }: { api: OwnerApi; item: ForwardItem; open: boolean; toggle(): void }) {
  const [view, setView] = useState<ForwardRequestView | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const detailsId = `fwd-${item.id.replace(/[^A-Za-z0-9]/g, '_')}`;
  useEffect(() => {
    if (!open) return;
    setFailure(null);
    getForwardRequest(api, fullIdOf(item))
      .then(setView)
      .catch((err) => setFailure(errorText(err)));
  }, [open]);
  return (
    <li class={`log-row forward-row status-${item.status}`} data-request-id={item.id}>
      <button type="button" class="log-summary" aria-expanded={open} aria-controls={detailsId} onClick={toggle}>
        <span class="outcome">{item.status}</span> <span>{when(item.created)}</span> <strong>{item.method}</strong> <code class="forward-url">{item.url}</code>
        <span>{item.status_code === undefined ? '' : `→ ${item.status_code}`}</span> <span class="caller">{item.caller}</span>
        {item.stream && <span class="stream"> streamed</span>}
        {item.next_attempt_at !== undefined && (
          <span class="waiting">
            {' '}
            {waitingFor(item)} until {when(item.next_attempt_at)}
          </span>
        )}
      </button>
      {open && (
        <div id={detailsId} class="log-details">
          {failure && (
            <p class="status error" role="alert">
              {failure}
            </p>
          )}
          {!view && !failure && <p class="hint">Reading…</p>}
          {view && <RequestView view={view} />}
        </div>
      )}
    </li>
  );
}

function RequestView({ view }: { view: ForwardRequestView }) {
  return (
    <>
      <dl class="forward-facts">
        <dt>Id</dt>
        <dd>
          <code>{view.full_id}</code>
        </dd>
        <dt>Caller</dt>
        <dd class="forward-caller">{view.caller}</dd>
        <dt>Queue</dt>
        <dd>{view.queue_name ?? 'none (direct)'}</dd>
        <dt>Status</dt>
        <dd class="forward-status">
          {view.status}
          {view.status_code === undefined ? '' : `, status code ${view.status_code}`}
        </dd>
        <dt>Created</dt>
        <dd class="forward-created">{when(view.created)}</dd>
        <dt>Executed</dt>
        <dd class="forward-executed">{when(view.executed, 'not yet')}</dd>
        <dt>Responded</dt>
        <dd class="forward-responded">{when(view.responded, 'not yet')}</dd>
        {view.next_attempt_at !== undefined && (
          <>
            <dt>Next attempt</dt>
            <dd class="forward-next-attempt">{when(view.next_attempt_at)}</dd>
          </>
        )}
        {view.attempts && view.attempts.length > 0 && (
          <>
            <dt>Waited out</dt>
            <dd>
              <ol class="forward-attempts">
                {view.attempts.map((attempt) => (
                  <li key={attempt.at}>
                    {when(attempt.at)}: {attempt.waited === 'circuit' ? 'held, destination paused' : attempt.status_code}, waited {waitText(attempt.waited_ms)}
                  </li>
                ))}
              </ol>
            </dd>
          </>
        )}
      </dl>
      <h4>Request</h4>
      <pre class="forward-request-line">{`${view.method} ${view.url}`}</pre>
      <h5>Headers</h5>
      <pre class="forward-headers">{view.request_headers === null ? 'not kept' : text(view.request_headers)}</pre>
      <h5>Body</h5>
      <pre class="forward-request-body">{text(view.request_body)}</pre>
      <h4>Response</h4>
      {view.stream && !view.finalized ? (
        <>
          <h5>Streamed text</h5>
          <pre class="forward-stream-text">{view.stream_text ? view.stream_text.text : 'no stored pieces'}</pre>
          {view.stream_text && !view.stream_text.complete && <p class="hint">Cut: the stored text is longer.</p>}
        </>
      ) : (
        <pre class="forward-response-body">{text(view.response_body)}</pre>
      )}
      {view.error && (
        <>
          <h5>Error</h5>
          <pre class="forward-error">{`${view.error.code}: ${view.error.message}`}</pre>
        </>
      )}
    </>
  );
}
