/**
 * The event inspector of a ticket's log (issue 37 item 4): filters and a value search sent to the server
 * (GET …/tickets/{id}/events; never a page filtered in the browser), a table of consumptions that stacks
 * into cards at phone width, "load more" by cursor, and the detail pane of the one opened. A search page
 * is bounded by the server and may find nothing yet: the inspector then asks for the next one, up to
 * FOLLOW_PAGES requests per click, showing how far back it has looked.
 */
import { useEffect, useState } from 'preact/hooks';
import type { LogEvent, LogEventPage } from '../../../../schemas/listings';
import { errorText, type OwnerApi } from '../../api';
import { eventQuery, NO_FILTERS, type EventFilters } from '../../logic/event-query';
import { when } from '../when';
import { EventDetail } from './EventDetail';

const PAGE = 25;
/** Pages one click asks for at most while they find nothing (each its own bounded request). */
const FOLLOW_PAGES = 10;

export function EventInspector({ api, ticketId }: { api: OwnerApi; ticketId: string }) {
  const [form, setForm] = useState<EventFilters>(NO_FILTERS);
  const [asked, setAsked] = useState<EventFilters>(NO_FILTERS);
  const [events, setEvents] = useState<LogEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<LogEvent | null>(null);

  const load = async (filters: EventFilters, startKey: string | null) => {
    setBusy(true);
    setError(null);
    if (!startKey) setEvents([]);
    let key = startKey;
    try {
      for (let asks = 0; asks < FOLLOW_PAGES; asks++) {
        const page = await api.project<LogEventPage>('GET', `/tickets/${encodeURIComponent(ticketId)}/events?${eventQuery(filters, PAGE, key)}`);
        setEvents((current) => (key || asks > 0 ? [...current, ...page.list] : page.list));
        key = page.endOfList ? null : page.startKey;
        setNext(key);
        setProgress(
          page.scanned_to !== null
            ? `Looked back to ${when(page.scanned_to)}; older entries not searched yet.`
            : key === null
              ? 'Searched to the start of the log.'
              : '',
        );
        if (page.list.length > 0 || key === null) break;
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void load(NO_FILTERS, null), [ticketId]);

  const set = (part: Partial<EventFilters>) => setForm({ ...form, ...part });
  const submit = (e: Event) => {
    e.preventDefault();
    setAsked(form);
    setOpen(null);
    void load(form, null);
  };

  return (
    <section class="inspector" aria-labelledby="inspector-title">
      <h3 id="inspector-title">Event inspector</h3>
      <form class="inspector-filters" onSubmit={submit}>
        <div class="field">
          <label for="ev-outcome">Outcome</label>
          <select id="ev-outcome" value={form.outcome} onChange={(e) => set({ outcome: e.currentTarget.value as EventFilters['outcome'] })}>
            <option value="">all</option>
            <option value="ok">ok</option>
            <option value="failed">failed</option>
            <option value="check">dry run</option>
          </select>
        </div>
        <div class="field">
          <label for="ev-code">Error code</label>
          <input id="ev-code" placeholder="ACTION_FAILED" value={form.code} onInput={(e) => set({ code: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="ev-from">From</label>
          <input id="ev-from" type="datetime-local" step="1" value={form.from} onChange={(e) => set({ from: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="ev-to">To</label>
          <input id="ev-to" type="datetime-local" step="1" value={form.to} onChange={(e) => set({ to: e.currentTarget.value })} />
        </div>
        <div class="field wide">
          <label for="ev-search">Value in the request</label>
          <input id="ev-search" placeholder="body.data.object.id = pi_123" value={form.search} onInput={(e) => set({ search: e.currentTarget.value })} />
        </div>
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      {error && (
        <p class="error" role="alert" id="inspector-error">
          {error}
        </p>
      )}
      <table class="events stack">
        <thead>
          <tr>
            <th>Time</th>
            <th>Outcome</th>
            <th>Consumer</th>
            <th>Duration</th>
            <th>First failure</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr
              key={event.log_key}
              class={`event-row${open?.log_key === event.log_key ? ' selected' : ''}`}
              data-consume-id={event.consume_id}
              tabIndex={0}
              onClick={() => setOpen(event)}
              onKeyDown={(e) => e.key === 'Enter' && setOpen(event)}
            >
              <td data-label="Time">{when(event.time)}</td>
              <td data-label="Outcome">
                <span class={`badge badge-${event.outcome}`}>{event.outcome === 'check' ? 'dry run' : event.outcome}</span>
                {event.sampled && ' (summary)'}
              </td>
              <td data-label="Consumer">{event.consumer}</td>
              <td data-label="Duration">{event.duration_ms === undefined ? '—' : `${event.duration_ms} ms`}</td>
              <td data-label="First failure">{event.first_failure ? `${event.first_failure.code} at ${event.first_failure.path}` : (event.code ?? '—')}</td>
              <td data-label="Actions">{event.actions_run}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint" id="inspector-progress" aria-live="polite">
        {busy ? 'Searching…' : events.length === 0 ? `No consumption found${asked.search ? ` with ${asked.search}` : ''}. ${progress}` : progress}
      </p>
      {next && (
        <button type="button" class="load-more" disabled={busy} onClick={() => load(asked, next)}>
          Load more
        </button>
      )}
      {open && <EventDetail api={api} ticketId={ticketId} event={open} onClose={() => setOpen(null)} />}
    </section>
  );
}
