/**
 * Secret Keys: names, destinations, access group, locked, limits. The value is write-only: a password
 * input sent with PUT and never read back (the service never answers it).
 */
import { useEffect, useState } from 'preact/hooks';
import { errorText, type OwnerApi } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { when } from '../components/when';
import { StatusLine, type Status } from '../components/StatusLine';

interface SecretKeyInfo {
  name: string;
  destinations: string[];
  access_group: number;
  locked: boolean;
  limits: { per_caller_per_minute?: number; per_key_per_minute?: number; queued_per_caller?: number };
  updated: number;
}

const LIMITS = ['per_caller_per_minute', 'per_key_per_minute', 'queued_per_caller'] as const;
const EMPTY = {
  name: '',
  value: '',
  destinations: '',
  access_group: '0',
  locked: false,
  limits: { per_caller_per_minute: '', per_key_per_minute: '', queued_per_caller: '' },
};

export function SecretsPage({ api }: { api: OwnerApi }) {
  const [list, setList] = useState<SecretKeyInfo[]>([]);
  const [form, setForm] = useState(EMPTY);
  const [status, setStatus] = useState<Status>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const load = () =>
    api
      .project<{ list: SecretKeyInfo[] }>('GET', '/secrets')
      .then((answer) => setList(answer.list))
      .catch((err) => setStatus({ text: errorText(err), error: true }));
  useEffect(() => void load(), []);

  const edit = (key: SecretKeyInfo) =>
    setForm({
      name: key.name,
      value: '',
      destinations: key.destinations.join('\n'),
      access_group: String(key.access_group),
      locked: key.locked,
      limits: Object.fromEntries(LIMITS.map((l) => [l, key.limits[l] === undefined ? '' : String(key.limits[l])])) as typeof EMPTY.limits,
    });

  const save = async (event: Event) => {
    event.preventDefault();
    const limits = Object.fromEntries(LIMITS.filter((l) => form.limits[l] !== '').map((l) => [l, Number(form.limits[l])]));
    const body = {
      value: form.value,
      destinations: form.destinations
        .split('\n')
        .map((d) => d.trim())
        .filter(Boolean),
      access_group: Number(form.access_group),
      locked: form.locked,
      limits,
    };
    try {
      await api.project('PUT', `/secrets/${encodeURIComponent(form.name)}`, body);
      setStatus({ text: `Saved secret key ${form.name}.` });
      setForm(EMPTY);
      await load();
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  const remove = async (name: string) => {
    setDeleting(null);
    try {
      await api.project('DELETE', `/secrets/${encodeURIComponent(name)}`);
      setStatus({ text: `Deleted secret key ${name}.` });
      await load();
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };

  const input = (id: string, label: string, value: string, onInput: (v: string) => void, extra: Record<string, unknown> = {}) => (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onInput(e.currentTarget.value)} {...extra} />
    </div>
  );
  return (
    <section aria-labelledby="secrets-title">
      <h2 id="secrets-title">Secret Keys</h2>
      <div class="table-wrap">
        <table id="secrets" class="cards">
          <thead>
            <tr>
              <th scope="col">name</th>
              <th scope="col">destinations</th>
              <th scope="col">access group</th>
              <th scope="col">locked</th>
              <th scope="col">limits</th>
              <th scope="col">updated</th>
              <th scope="col">
                <span class="visually-hidden">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((key) => (
              <tr key={key.name} data-secret={key.name}>
                <td data-label="name">{key.name}</td>
                <td data-label="destinations">{key.destinations.length ? key.destinations.join(', ') : 'any'}</td>
                <td data-label="access group">{key.access_group}</td>
                <td data-label="locked">{key.locked ? 'yes' : 'no'}</td>
                <td data-label="limits">
                  {LIMITS.filter((l) => key.limits[l] !== undefined)
                    .map((l) => `${l}: ${key.limits[l]}`)
                    .join(', ') || 'none'}
                </td>
                <td data-label="updated">{when(key.updated)}</td>
                <td>
                  <button type="button" onClick={() => edit(key)} aria-label={`Replace ${key.name}`}>
                    Replace
                  </button>{' '}
                  <button type="button" onClick={() => setDeleting(key.name)} aria-label={`Delete ${key.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form id="secret-form" onSubmit={save}>
        <h3>Store a Secret Key</h3>
        {input('secret-name', 'name', form.name, (name) => setForm({ ...form, name }), { required: true })}
        {input('secret-value', 'value (write-only: never shown again)', form.value, (value) => setForm({ ...form, value }), {
          type: 'password',
          autocomplete: 'new-password',
          required: true,
        })}
        <div class="field">
          <label for="secret-destinations">destinations (one url a line; none = any public url)</label>
          <textarea id="secret-destinations" rows={3} value={form.destinations} onInput={(e) => setForm({ ...form, destinations: e.currentTarget.value })} />
        </div>
        {input('secret-group', 'access group (0..99)', form.access_group, (access_group) => setForm({ ...form, access_group }), {
          type: 'number',
          min: 0,
          max: 99,
        })}
        <div class="field inline">
          <input id="secret-locked" type="checkbox" checked={form.locked} onChange={(e) => setForm({ ...form, locked: e.currentTarget.checked })} />
          <label for="secret-locked">locked (a signed-in caller of the access group only)</label>
        </div>
        {LIMITS.map((l) =>
          input(`secret-${l}`, `limit ${l.replaceAll('_', ' ')}`, form.limits[l], (v) => setForm({ ...form, limits: { ...form.limits, [l]: v } }), {
            type: 'number',
            min: 1,
          }),
        )}
        <button type="submit">Save secret key</button>
      </form>
      <StatusLine id="secrets-status" status={status} />
      {deleting && (
        <ConfirmDialog
          title={`Delete secret key ${deleting}?`}
          text="Tickets and forwarded requests naming it fail until a key of that name is stored again."
          confirmLabel="Delete"
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
