/** One row of the tickets table: the listed fields, and the Edit and Delete buttons. */
import type { ListedTicket } from '../../schemas/listings';

export interface RowActions {
  edit(ticket: ListedTicket): void;
  remove(ticket: ListedTicket): void;
}

const when = (ms: number | undefined) => (ms === undefined ? 'never' : new Date(ms).toLocaleString());

export function ticketRow(ticket: ListedTicket, actions: RowActions): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const cells = [ticket.ticket_id, ticket.description, ticket.count ?? 'unlimited', when(ticket.time_to_live), when(ticket.updated)];
  for (const text of cells) {
    const td = document.createElement('td');
    td.textContent = String(text);
    tr.append(td);
  }
  const buttons = document.createElement('td');
  const edit = Object.assign(document.createElement('button'), { textContent: 'Edit' });
  edit.onclick = () => actions.edit(ticket);
  const remove = Object.assign(document.createElement('button'), { textContent: 'Delete' });
  remove.onclick = () => actions.remove(ticket);
  buttons.append(edit, ' ', remove);
  tr.append(buttons);
  return tr;
}
