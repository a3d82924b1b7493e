// Owner dashboard: lists, registers (JSON mode), edits and deletes tickets with the owner key.
// The key stays in this tab's sessionStorage and is sent only to this origin.
import type { DatabaseResponse, ListedTicket } from '../../schemas/listings';
import { callProject, refusalText, type Session } from './api';
import { registryRefusal } from './registry-check';
import { ticketRow } from './ticket-row';

function $<E extends HTMLElement = HTMLElement>(selector: string): E {
  const element = document.querySelector<E>(selector);
  if (!element) throw new Error(`the page has no ${selector}`);
  return element;
}
const field = (form: string, name: string) => $<HTMLInputElement | HTMLTextAreaElement>(`${form} [name=${name}]`);

const session = JSON.parse(sessionStorage.getItem('svc-owner') ?? 'null') as Session | null;
let nextKey: string | null = null;

function say(text: string, isError = false) {
  $('#status').textContent = text;
  $('#status').className = isError ? 'error' : '';
}
const sayError = (err: unknown) => say(err instanceof Error ? err.message : String(err), true);

const api = <T>(method: string, path: string, body?: unknown) => callProject<T>(session as Session, method, path, body);

function edit(ticket: ListedTicket) {
  const { ticket_id, description, count, limit_per_user, time_to_live, condition, actions } = ticket;
  field('#register', 'ticket_id').value = ticket_id;
  field('#register', 'definition').value = JSON.stringify({ description, count, limit_per_user, time_to_live, condition, actions }, null, 2);
}

async function remove(ticket: ListedTicket) {
  if (!confirm(`Delete ticket ${ticket.ticket_id}? Its per-user counters go; its log stays.`)) return;
  try {
    await api('DELETE', `/tickets/${encodeURIComponent(ticket.ticket_id)}`);
    say(`Deleted ${ticket.ticket_id}.`);
    await load(true);
  } catch (err) {
    sayError(err);
  }
}

async function load(reset: boolean) {
  if (reset) {
    nextKey = null;
    $('#tickets tbody').replaceChildren();
  }
  const page = await api<DatabaseResponse<ListedTicket>>('GET', `/tickets${nextKey ? `?startKey=${encodeURIComponent(nextKey)}` : ''}`);
  for (const ticket of page.list) $('#tickets tbody').append(ticketRow(ticket, { edit, remove }));
  nextKey = page.endOfList ? null : page.startKey;
  $('#more').hidden = page.endOfList;
}

$<HTMLFormElement>('#signin').onsubmit = (event) => {
  event.preventDefault();
  const data = Object.fromEntries(new FormData(event.target as HTMLFormElement));
  sessionStorage.setItem('svc-owner', JSON.stringify(data));
  location.reload();
};

$<HTMLFormElement>('#register').onsubmit = async (event) => {
  event.preventDefault();
  const form = new FormData(event.target as HTMLFormElement);
  const ticketId = String(form.get('ticket_id'));
  let definition: unknown;
  try {
    definition = JSON.parse(String(form.get('definition')));
  } catch (err) {
    return say(`The definition is not valid JSON: ${(err as Error).message}`, true);
  }
  try {
    const refusal = await registryRefusal(ticketId, definition);
    if (refusal) return say(refusalText(refusal), true);
    const saved = await api<ListedTicket>('PUT', `/tickets/${encodeURIComponent(ticketId)}`, definition);
    say(`Saved ${saved.ticket_id}.`);
    await load(true);
  } catch (err) {
    sayError(err);
  }
};

$('#more').onclick = () => load(false).catch(sayError);

if (session) {
  field('#signin', 'service_id').value = session.service_id;
  $('#main').hidden = false;
  load(true).catch(sayError);
}
