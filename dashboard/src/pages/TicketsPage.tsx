/**
 * The tickets list: id, description, count left, expiry, and each ticket's consumptions and failures
 * over the last 24 hours from its metrics (a sparkline per ticket: one metrics request per ticket listed).
 */
import { useEffect, useState } from 'preact/hooks';
import type { DatabaseResponse, ListedTicket } from '../../../schemas/listings';
import { errorText, type OwnerApi } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { TicketSparkline } from '../components/charts/TicketSparkline';
import { when } from '../components/when';
import { StatusLine, type Status } from '../components/StatusLine';
import { useListing } from '../components/use-listing';

export function TicketsPage({ api }: { api: OwnerApi }) {
  const listing = useListing<ListedTicket>((startKey) =>
    api.project<DatabaseResponse<ListedTicket>>('GET', `/tickets${startKey ? `?startKey=${encodeURIComponent(startKey)}` : ''}`),
  );
  const { rows: tickets, next, loading } = listing;
  const [readAt, setReadAt] = useState(() => Date.now());
  const [status, setStatus] = useState<Status>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const load = async (startKey: string | null) => {
    try {
      const page = await listing.load(startKey);
      if (!startKey) setReadAt(Date.now());
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
          <caption class="visually-hidden">Registered tickets; consumptions and failures of the last 24 hours</caption>
          <thead>
            <tr>
              <th scope="col">ticket_id</th>
              <th scope="col">description</th>
              <th scope="col">count left</th>
              <th scope="col">expires</th>
              <th scope="col">last 24 h</th>
              <th scope="col">
                <span class="visually-hidden">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tickets.map((ticket) => (
              <tr key={ticket.ticket_id} data-ticket={ticket.ticket_id}>
                <td data-label="ticket_id" class="id">
                  {ticket.ticket_id}
                </td>
                <td data-label="description" class="description">
                  {ticket.description}
                </td>
                <td data-label="count left">{ticket.count ?? 'unlimited'}</td>
                <td data-label="expires">{when(ticket.time_to_live)}</td>
                <td data-label="last 24 h" class="rate">
                  <TicketSparkline api={api} ticketId={ticket.ticket_id} readAt={readAt} />
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
            ))}
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
