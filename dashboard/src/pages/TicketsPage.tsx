/**
 * The tickets list: id, description, count left, expiry, and from the first page of each ticket's log
 * (STATS_ROWS rows) the last consumption and the failure rate.
 */
import { useEffect, useState } from 'preact/hooks';
import type { DatabaseResponse, ListedTicket, OwnerLogRow } from '../../../schemas/listings';
import { errorText, type OwnerApi } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { when } from '../components/when';
import { STATS_ROWS, failureRateText, ticketStats, type TicketStats } from '../logic/ticket-stats';
import { StatusLine, type Status } from '../components/StatusLine';
import { useListing } from '../components/use-listing';

const logId = (ticketId: string) => encodeURIComponent(`#${ticketId}#`);

export function TicketsPage({ api }: { api: OwnerApi }) {
  const listing = useListing<ListedTicket>((startKey) =>
    api.project<DatabaseResponse<ListedTicket>>('GET', `/tickets${startKey ? `?startKey=${encodeURIComponent(startKey)}` : ''}`),
  );
  const { rows: tickets, next, loading } = listing;
  const [stats, setStats] = useState<Record<string, TicketStats | 'error'>>({});
  const [status, setStatus] = useState<Status>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const readStats = (list: ListedTicket[]) => {
    for (const ticket of list) {
      api
        .project<DatabaseResponse<OwnerLogRow>>('GET', `/tickets?ticket_id=${logId(ticket.ticket_id)}&limit=${STATS_ROWS}`)
        .then((page) => setStats((s) => ({ ...s, [ticket.ticket_id]: ticketStats(page.list) })))
        .catch(() => setStats((s) => ({ ...s, [ticket.ticket_id]: 'error' })));
    }
  };

  const load = async (startKey: string | null) => {
    try {
      const page = await listing.load(startKey);
      if (!startKey) setStats({});
      readStats(page.list);
      setStatus(startKey ? null : { text: `${page.list.length}${page.endOfList ? '' : '+'} tickets, read ${new Date().toLocaleTimeString()}.` });
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  useEffect(() => void load(null), []);

  const remove = async (ticketId: string) => {
    setDeleting(null);
    try {
      await api.project('DELETE', `/tickets/${encodeURIComponent(ticketId)}`);
      setStatus({ text: `Deleted ${ticketId}.` });
      await load(null);
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };

  return (
    <section aria-labelledby="tickets-title">
      <div class="title-bar">
        <h2 id="tickets-title">Tickets</h2>
        <a class="button" href="#/new">
          New ticket
        </a>
        <button type="button" onClick={() => load(null)} disabled={loading}>
          Refresh
        </button>
      </div>
      <div class="table-wrap">
        <table id="tickets" class="cards">
          <caption class="visually-hidden">Registered tickets; last consumption and failure rate from the newest {STATS_ROWS} log rows</caption>
          <thead>
            <tr>
              <th scope="col">ticket_id</th>
              <th scope="col">description</th>
              <th scope="col">count left</th>
              <th scope="col">expires</th>
              <th scope="col">last consumption</th>
              <th scope="col">failure rate</th>
              <th scope="col">
                <span class="visually-hidden">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tickets.map((ticket) => {
              const s = stats[ticket.ticket_id];
              return (
                <tr key={ticket.ticket_id} data-ticket={ticket.ticket_id}>
                  <td data-label="ticket_id" class="id">
                    {ticket.ticket_id}
                  </td>
                  <td data-label="description" class="description">
                    {ticket.description}
                  </td>
                  <td data-label="count left">{ticket.count ?? 'unlimited'}</td>
                  <td data-label="expires">{when(ticket.time_to_live)}</td>
                  <td data-label="last consumption" class="last">
                    {s === undefined ? '…' : s === 'error' ? 'could not read the log' : when(s.lastConsumption, 'none')}
                  </td>
                  <td data-label="failure rate" class="rate">
                    {s === undefined ? '…' : s === 'error' ? '—' : failureRateText(s)}
                  </td>
                  <td class="row-actions">
                    <a href={`#/tickets/${encodeURIComponent(ticket.ticket_id)}/edit`} aria-label={`Edit ${ticket.ticket_id}`}>
                      Edit
                    </a>{' '}
                    <a href={`#/tickets/${encodeURIComponent(ticket.ticket_id)}/logs`} aria-label={`Logs of ${ticket.ticket_id}`}>
                      Logs
                    </a>{' '}
                    <button type="button" onClick={() => setDeleting(ticket.ticket_id)} aria-label={`Delete ${ticket.ticket_id}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {next && (
        <button type="button" onClick={() => load(next)}>
          More tickets
        </button>
      )}
      <StatusLine id="tickets-status" status={status} />
      {deleting && (
        <ConfirmDialog
          title={`Delete ticket ${deleting}?`}
          text="Its per-user counters go; its log stays."
          confirmLabel="Delete"
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
