// Owner dashboard: lists, registers (JSON mode), edits and deletes tickets with the owner key.
// The key stays in this tab's sessionStorage and is sent only to this origin.
const $ = (selector) => document.querySelector(selector);
const session = JSON.parse(sessionStorage.getItem('svc-owner') ?? 'null');
let nextKey = null;

function say(text, isError = false) {
  $('#status').textContent = text;
  $('#status').className = isError ? 'error' : '';
}

async function api(method, path, body) {
  const res = await fetch(`/v1/projects/${session.service_id}${path}`, {
    method,
    headers: { authorization: `Bearer ${session.owner_key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(json ? `${json.code}: ${json.message}` : `HTTP ${res.status}`);
  return json;
}

const when = (ms) => (ms === undefined ? 'never' : new Date(ms).toLocaleString());

function row(ticket) {
  const tr = document.createElement('tr');
  const cells = [ticket.ticket_id, ticket.description, ticket.count ?? 'unlimited', when(ticket.time_to_live), when(ticket.updated)];
  for (const text of cells) {
    const td = document.createElement('td');
    td.textContent = String(text);
    tr.append(td);
  }
  const actions = document.createElement('td');
  const edit = Object.assign(document.createElement('button'), { textContent: 'Edit' });
  edit.onclick = () => {
    const { ticket_id, description, count, limit_per_user, time_to_live, condition, actions: list } = ticket;
    $('#register [name=ticket_id]').value = ticket_id;
    $('#register [name=definition]').value = JSON.stringify({ description, count, limit_per_user, time_to_live, condition, actions: list }, null, 2);
  };
  const remove = Object.assign(document.createElement('button'), { textContent: 'Delete' });
  remove.onclick = async () => {
    if (!confirm(`Delete ticket ${ticket.ticket_id}? Its per-user counters go; its log stays.`)) return;
    try {
      await api('DELETE', `/tickets/${encodeURIComponent(ticket.ticket_id)}`);
      say(`Deleted ${ticket.ticket_id}.`);
      await load(true);
    } catch (err) {
      say(err.message, true);
    }
  };
  actions.append(edit, ' ', remove);
  tr.append(actions);
  return tr;
}

async function load(reset) {
  if (reset) {
    nextKey = null;
    $('#tickets tbody').replaceChildren();
  }
  const page = await api('GET', `/tickets${nextKey ? `?startKey=${encodeURIComponent(nextKey)}` : ''}`);
  for (const ticket of page.list) $('#tickets tbody').append(row(ticket));
  nextKey = page.endOfList ? null : page.startKey;
  $('#more').hidden = page.endOfList;
}

$('#signin').onsubmit = async (event) => {
  event.preventDefault();
  const data = Object.fromEntries(new FormData(event.target));
  sessionStorage.setItem('svc-owner', JSON.stringify(data));
  location.reload();
};

$('#register').onsubmit = async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  let definition;
  try {
    definition = JSON.parse(form.get('definition'));
  } catch (err) {
    return say(`The definition is not valid JSON: ${err.message}`, true);
  }
  try {
    const saved = await api('PUT', `/tickets/${encodeURIComponent(form.get('ticket_id'))}`, definition);
    say(`Saved ${saved.ticket_id}.`);
    await load(true);
  } catch (err) {
    say(err.message, true);
  }
};

$('#more').onclick = () => load(false).catch((err) => say(err.message, true));

if (session) {
  $('#signin [name=service_id]').value = session.service_id;
  $('#main').hidden = false;
  load(true).catch((err) => say(err.message, true));
}
