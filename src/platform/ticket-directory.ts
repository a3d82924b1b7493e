import type { StoredTicket } from '../../schemas/ticket-types';
import type { Env } from '../env';

/** The D1 copy of each ticket, used for listing; the TicketDO holds the copy the engine runs. */
export async function directoryEntry(env: Env, serviceId: string, ticketId: string): Promise<StoredTicket | null> {
  const row = await env.DB.prepare('SELECT definition FROM tickets WHERE service_id = ? AND ticket_id = ?')
    .bind(serviceId, ticketId)
    .first<{ definition: string }>();
  return row ? (JSON.parse(row.definition) as StoredTicket) : null;
}

/** Saves the listing copy; the ticket's log is from now on one the retention sweep visits (log_tickets). */
export async function saveDirectoryEntry(env: Env, serviceId: string, ticket: StoredTicket): Promise<void> {
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO tickets (service_id, ticket_id, description, definition, timestamp, updated) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (service_id, ticket_id) DO UPDATE SET description = excluded.description, definition = excluded.definition, updated = excluded.updated`,
    ).bind(serviceId, ticket.ticket_id, ticket.description ?? '', JSON.stringify(ticket), ticket.timestamp, ticket.updated),
    env.DB.prepare('INSERT INTO log_tickets (service_id, ticket_id) VALUES (?, ?) ON CONFLICT DO NOTHING').bind(serviceId, ticket.ticket_id),
  ]);
}

export async function deleteDirectoryEntry(env: Env, serviceId: string, ticketId: string): Promise<boolean> {
  const result = await env.DB.prepare('DELETE FROM tickets WHERE service_id = ? AND ticket_id = ?').bind(serviceId, ticketId).run();
  return result.meta.changes > 0;
}

/** One page of tickets in ticket_id order, after `after` (exclusive). */
export async function listDirectory(env: Env, serviceId: string, after: string | null, limit: number, only?: string): Promise<StoredTicket[]> {
  const rows = only
    ? await env.DB.prepare('SELECT definition FROM tickets WHERE service_id = ? AND ticket_id = ?').bind(serviceId, only).all<{ definition: string }>()
    : await env.DB.prepare('SELECT definition FROM tickets WHERE service_id = ? AND ticket_id > ? ORDER BY ticket_id LIMIT ?')
        .bind(serviceId, after ?? '', limit)
        .all<{ definition: string }>();
  return rows.results.map((r) => JSON.parse(r.definition) as StoredTicket);
}
