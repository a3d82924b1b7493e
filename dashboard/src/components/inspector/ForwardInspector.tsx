/**
 * The event inspector of the forwarding history (issue 37 item 4): filters (status class, error code,
 * destination, caller, time) and a value search in the request body or headers, all run by the server
 * (GET …/forward/events), a table that stacks into cards at phone width, "load more" by cursor, and a detail
 * pane with the request as written ($CLIENT_SECRET in place of the key), the answer, timings, and copy as curl.
 */
import { useEffect, useState } from 'preact/hooks';
import type { DatabaseResponse } from '../../../../schemas/listings';
import { errorText, getForwardRequest, type ForwardItem, type ForwardRequestView, type OwnerApi } from '../../api';
import { forwardCurlOf } from '../../logic/curl';
import { forwardEventQuery, NO_FORWARD_FILTERS, type ForwardEventFilters } from '../../logic/event-query';
import { when } from '../when';
import { JsonView } from './JsonView';

const PAGE = 25;
const fullIdOf = (item: ForwardItem) => `${item.method}:${item.id}:${item.url}`;
const durationOf = (item: ForwardItem) => (item.executed !== undefined && item.responded !== undefined ? `${item.responded - item.executed} ms` : '—');
const statusBadge = (item: ForwardItem) => (item.status_code === undefined ? 'none' : `${Math.floor(item.status_code / 100)}xx`);

export function ForwardInspector({ api }: { api: OwnerApi }) {
  const [form, setForm] = useState<ForwardEventFilters>(NO_FORWARD_FILTERS);
  const [asked, setAsked] = useState<ForwardEventFilters | null>(null);
  const [items, setItems] = useState<ForwardItem[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<ForwardItem | null>(null);

  const load = async (filters: ForwardEventFilters, startKey: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const page = await api.project<DatabaseResponse<ForwardItem>>('GET', `/forward/events?${forwardEventQuery(filters, PAGE, startKey)}`);
      setItems((current) => (startKey ? [...current, ...page.list] : page.list));
      setNext(page.endOfList ? null : page.startKey);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const set = (part: Partial<ForwardEventFilters>) => setForm({ ...form, ...part });
  const submit = (e: Event) => {
    e.preventDefault();
    setAsked(form);
    setOpen(null);
    void load(form, null);
  };

  return (
    <section class="inspector forward-inspector" aria-labelledby="fwd-inspector-title">
      <h3 id="fwd-inspector-title">Search forwarded requests</h3>
      <form class="inspector-filters" onSubmit={submit}>
        <div class="field">
          <label for="fe-status">Answer</label>
          <select
            id="fe-status"
            value={form.status_class}
            onChange={(e) => set({ status_class: e.currentTarget.value as ForwardEventFilters['status_class'] })}
          >
            <option value="">any</option>
            {['2xx', '3xx', '4xx', '5xx'].map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
            <option value="none">no answer</option>
          </select>
        </div>
        <div class="field">
          <label for="fe-code">Error code</label>
          <input id="fe-code" placeholder="REQUEST_FAILED" value={form.error_code} onInput={(e) => set({ error_code: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="fe-destination">Destination</label>
          <input
            id="fe-destination"
            placeholder="https://api.example.com"
            value={form.destination}
            onInput={(e) => set({ destination: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="fe-caller">Caller</label>
          <input id="fe-caller" value={form.caller} onInput={(e) => set({ caller: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="fe-from">From</label>
          <input id="fe-from" type="datetime-local" step="1" value={form.from} onChange={(e) => set({ from: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="fe-to">To</label>
          <input id="fe-to" type="datetime-local" step="1" value={form.to} onChange={(e) => set({ to: e.currentTarget.value })} />
        </div>
        <div class="field wide">
          <label for="fe-search">Value in the request</label>
          <input
            id="fe-search"
            placeholder="body.order.id = 42 or headers.x-request-id = abc"
            value={form.search}
            onInput={(e) => set({ search: e.currentTarget.value })}
          />
        </div>
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      {error && (
        <p class="error" role="alert" id="fwd-inspector-error">
          {error}
        </p>
      )}
      {asked && (
        <table class="events stack">
          <thead>
            <tr>
              <th>Created</th>
              <th>Answer</th>
              <th>Caller</th>
              <th>Duration</th>
              <th>Request</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr
                key={fullIdOf(item)}
                class={`event-row forward-event${open && fullIdOf(open) === fullIdOf(item) ? ' selected' : ''}`}
                tabIndex={0}
                onClick={() => setOpen(item)}
                onKeyDown={(e) => e.key === 'Enter' && setOpen(item)}
              >
                <td data-label="Created">{when(item.created)}</td>
                <td data-label="Answer">
                  <span class={`badge badge-${item.status === 'failed' || (item.status_code ?? 0) >= 400 ? 'failed' : 'ok'}`}>
                    {item.status_code ?? item.status}
                  </span>{' '}
                  {statusBadge(item)}
                </td>
                <td data-label="Caller">{item.caller}</td>
                <td data-label="Duration">{durationOf(item)}</td>
                <td data-label="Request">
                  <code>
                    {item.method} {item.url}
                  </code>
                </td>
                <td data-label="Error">{item.error?.code ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {asked && items.length === 0 && !busy && <p class="hint">No forwarded request found.</p>}
      {next && (
        <button type="button" class="load-more" disabled={busy} onClick={() => asked && load(asked, next)}>
          Load more
        </button>
      )}
      {open && <ForwardEventDetail api={api} item={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

function ForwardEventDetail({ api, item, onClose }: { api: OwnerApi; item: ForwardItem; onClose(): void }) {
  const [view, setView] = useState<ForwardRequestView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState('');
  const id = fullIdOf(item);
  useEffect(() => {
    setView(null);
    setCopied('');
    getForwardRequest(api, id)
      .then(setView)
      .catch((err) => setError(errorText(err)));
  }, [id]);
  const copyCurl = async () => {
    if (!view) return;
    try {
      await navigator.clipboard.writeText(forwardCurlOf(view));
      setCopied('Copied a curl command ($CLIENT_SECRET stands for the key).');
    } catch (err) {
      setCopied(`Could not copy: ${errorText(err)}`);
    }
  };
  return (
    <section class="event-detail" aria-label={`Forwarded request ${item.id}`}>
      <div class="title-bar">
        <h3>
          <code>{item.id}</code>
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="hint">
        {when(item.created)} · {item.caller} · {item.status}
        {item.status_code !== undefined && `, ${item.status_code}`} · {durationOf(item)}
      </p>
      {view && (
        <button type="button" class="copy-curl" onClick={copyCurl}>
          Copy as curl
        </button>
      )}
      {copied && (
        <p class="hint copied" role="status">
          {copied}
        </p>
      )}
      {error && <p class="error">{error}</p>}
      {view === null ? (
        !error && <p class="hint">Reading…</p>
      ) : (
        <>
          <h4>Request as written</h4>
          <p>
            <code>
              {view.method} {view.url}
            </code>
          </p>
          <h5>Headers</h5>
          <JsonView value={view.request_headers ?? 'not kept'} class="event-headers" />
          <h5>Body</h5>
          <JsonView value={view.request_body ?? '—'} class="event-body" />
          <h4>Answer</h4>
          <JsonView value={view.response_body ?? view.stream_text?.text ?? '—'} class="event-answer" />
          {view.error && <JsonView value={view.error} class="error" />}
        </>
      )}
    </section>
  );
}
