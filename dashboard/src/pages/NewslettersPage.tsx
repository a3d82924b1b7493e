/**
 * Newsletters: the stored messages listed by group (all groups, or one), a form to create or replace
 * one, delete after a confirmation; an opened group also lists its subscribers, paged.
 */
import { useEffect, useState } from 'preact/hooks';
import type { DatabaseResponse } from '../../../schemas/listings';
import { errorText, type OwnerApi } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { MailContentFields } from '../components/MailContentFields';
import { when } from '../components/when';
import type { MailContent, Newsletter, Subscriber } from '../settings-types';
import { StatusLine, type Status } from '../components/StatusLine';
import { useListing } from '../components/use-listing';

const EMPTY_FORM = { group: 'public', message_id: '', content: { subject: '', html: '', text: '' } as MailContent };
const SUBSCRIBERS_PAGE = 50;

/** The newsletters by group, groups in the order the service lists them (by group key). */
function byGroup(list: Newsletter[]): Array<[string, Newsletter[]]> {
  const groups = new Map<string, Newsletter[]>();
  for (const newsletter of list) {
    const key = String(newsletter.group);
    groups.set(key, [...(groups.get(key) ?? []), newsletter]);
  }
  return [...groups];
}

const pathOf = (group: string, messageId: string) => `/newsletters/${encodeURIComponent(group)}/${encodeURIComponent(messageId)}`;

export function NewslettersPage({ api }: { api: OwnerApi }) {
  const [list, setList] = useState<Newsletter[]>([]);
  /** The group opened ('' for all groups) and the text of its input. */
  const [group, setGroup] = useState('');
  const [groupInput, setGroupInput] = useState('');
  const [form, setForm] = useState(EMPTY_FORM);
  const [status, setStatus] = useState<Status>(null);
  const [deleting, setDeleting] = useState<Newsletter | null>(null);

  const load = () =>
    api
      .project<{ list: Newsletter[] }>('GET', group ? `/newsletters?group=${encodeURIComponent(group)}` : '/newsletters')
      .then((answer) => setList(answer.list))
      .catch((err) => setStatus({ text: errorText(err), error: true }));
  useEffect(() => void load(), [group]);

  const open = (next: string) => {
    setGroupInput(next);
    setGroup(next);
  };
  const edit = (newsletter: Newsletter) => {
    setForm({
      group: String(newsletter.group),
      message_id: newsletter.message_id,
      content: { subject: newsletter.subject, html: newsletter.html, text: newsletter.text },
    });
    document.getElementById('newsletter-message-id')?.focus();
  };
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api.project('PUT', pathOf(form.group, form.message_id), form.content);
      setStatus({ text: `Saved newsletter ${form.message_id} of group ${form.group}.` });
      setForm(EMPTY_FORM);
      await load();
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  const remove = async (newsletter: Newsletter) => {
    setDeleting(null);
    try {
      await api.project('DELETE', pathOf(String(newsletter.group), newsletter.message_id));
      setStatus({ text: `Deleted newsletter ${newsletter.message_id} of group ${newsletter.group}.` });
      await load();
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };

  return (
    <section aria-labelledby="newsletters-title">
      <h2 id="newsletters-title">Newsletters</h2>
      <form id="newsletter-filter" class="filters" onSubmit={(e) => (e.preventDefault(), open(groupInput.trim()))}>
        <div class="field">
          <label for="newsletter-group-filter">group (empty: every group)</label>
          <input id="newsletter-group-filter" value={groupInput} onInput={(e) => setGroupInput(e.currentTarget.value)} />
        </div>
        <button type="submit">Show</button>
        {group && (
          <button type="button" onClick={() => open('')}>
            Every group
          </button>
        )}
      </form>
      {byGroup(list).map(([key, newsletters]) => (
        <div key={key} class="newsletter-group" data-group={key}>
          <div class="title-bar">
            <h3>Group {key}</h3>
            {!group && (
              <button type="button" onClick={() => open(key)} aria-label={`Open group ${key} and its subscribers`}>
                Open group
              </button>
            )}
          </div>
          <NewsletterTable newsletters={newsletters} edit={edit} remove={setDeleting} />
        </div>
      ))}
      {list.length === 0 && <p class="hint">No newsletters{group ? ` in group ${group}` : ''} yet.</p>}
      {group && <Subscribers key={group} api={api} group={group} />}
      <form id="newsletter-form" onSubmit={save}>
        <h3>Create or replace a newsletter</h3>
        <div class="field">
          <label for="newsletter-group">group ('public', 'authorized', a number 2 to 99 or a name)</label>
          <input id="newsletter-group" required value={form.group} onInput={(e) => setForm({ ...form, group: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="newsletter-message-id">message id (1 to 64 letters, digits, _ or -)</label>
          <input
            id="newsletter-message-id"
            required
            pattern="[A-Za-z0-9_-]{1,64}"
            value={form.message_id}
            onInput={(e) => setForm({ ...form, message_id: e.currentTarget.value })}
          />
        </div>
        <MailContentFields
          idPrefix="newsletter"
          value={form.content}
          filledFrom="of which a send fills ${service_name} and ${email} (the subscriber's address) only"
          onChange={(content) => setForm({ ...form, content })}
        />
        <button type="submit">Save newsletter</button>
      </form>
      <StatusLine id="newsletters-status" status={status} />
      {deleting && (
        <ConfirmDialog
          title={`Delete newsletter ${deleting.message_id} of group ${deleting.group}?`}
          text="Tickets whose nlsd action names it fail until a newsletter of that name is stored again. Its subscribers stay."
          confirmLabel="Delete"
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
    </section>
  );
}

function NewsletterTable({ newsletters, edit, remove }: { newsletters: Newsletter[]; edit(n: Newsletter): void; remove(n: Newsletter): void }) {
  return (
    <div class="table-wrap">
      <table class="cards newsletters">
        <thead>
          <tr>
            <th scope="col">message id</th>
            <th scope="col">subject</th>
            <th scope="col">updated</th>
            <th scope="col">
              <span class="visually-hidden">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {newsletters.map((newsletter) => (
            <tr key={newsletter.message_id} data-newsletter={`${newsletter.group}/${newsletter.message_id}`}>
              <td data-label="message id">{newsletter.message_id}</td>
              <td data-label="subject" class="subject">
                {newsletter.subject}
              </td>
              <td data-label="updated">{when(newsletter.updated)}</td>
              <td>
                <button type="button" onClick={() => edit(newsletter)} aria-label={`Edit ${newsletter.message_id} of group ${newsletter.group}`}>
                  Edit
                </button>{' '}
                <button type="button" onClick={() => remove(newsletter)} aria-label={`Delete ${newsletter.message_id} of group ${newsletter.group}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The subscribers of one group, a page at a time (a group may have many). */
function Subscribers({ api, group }: { api: OwnerApi; group: string }) {
  const [error, setError] = useState<string | null>(null);
  const listing = useListing<Subscriber>((startKey) => {
    const q = new URLSearchParams({ limit: String(SUBSCRIBERS_PAGE) });
    if (startKey) q.set('startKey', startKey);
    return api.project<DatabaseResponse<Subscriber>>('GET', `/subscribers/${encodeURIComponent(group)}?${q}`);
  });
  const { rows, next } = listing;
  const load = async (startKey: string | null) => {
    try {
      await listing.load(startKey);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => void load(null), []);
  return (
    <div class="subscribers" aria-labelledby="subscribers-title">
      <h3 id="subscribers-title">Subscribers of group {group}</h3>
      {error && (
        <p id="subscribers-error" class="status error" role="alert">
          {error}
        </p>
      )}
      <ul id="subscribers">
        {rows.map((s) => (
          <li key={s.email} data-email={s.email}>
            {s.email}
            {s.user_id ? ` (user ${s.user_id})` : ''}, since {when(s.created)}
          </li>
        ))}
      </ul>
      {!error && rows.length === 0 && <p class="hint">No subscribers.</p>}
      {next && (
        <button type="button" onClick={() => load(next)}>
          More subscribers
        </button>
      )}
    </div>
  );
}
