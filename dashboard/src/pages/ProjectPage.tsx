/**
 * The project as its owner key reads it (GET /v1/owner), its traffic over a range (all tickets' metrics
 * merged: GET …/metrics), and the owner's own settings (PATCH …/settings): name, external identity
 * issuer, the secureRequest key (write-only) and its Destinations. Plan and active are the operator's
 * and shown read-only.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorText, type OwnerApi, type OwnerProject } from '../api';
import { type SettingsForm, formOf, inputOfField, settingsBody } from '../logic/settings-form';
import { StatusLine, type Status } from '../components/StatusLine';
import { AlertsSection } from '../components/alerts/AlertsSection';
import { MetricsPanel } from '../components/charts/MetricsPanel';

/** `onSaved` gets the project as saved (the header shows its name). */
export function ProjectPage({ api, onSaved }: { api: OwnerApi; onSaved?: (project: OwnerProject) => void }) {
  const [project, setProject] = useState<OwnerProject | null>(null);
  const [form, setForm] = useState<SettingsForm | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [refused, setRefused] = useState<{ input: keyof SettingsForm; text: string } | null>(null);

  const show = (p: OwnerProject) => {
    setProject(p);
    setForm(formOf(p));
  };
  useEffect(() => {
    api
      .call<OwnerProject>('GET', '/v1/owner')
      .then(show)
      .catch((err) => setStatus({ text: errorText(err), error: true }));
  }, []);

  const send = async (body: Record<string, unknown>, done: string) => {
    setRefused(null);
    try {
      const saved = await api.project<OwnerProject>('PATCH', '/settings', body);
      show(saved);
      onSaved?.(saved);
      setStatus({ text: done });
    } catch (err) {
      const input = err instanceof ApiError ? inputOfField(err.field) : null;
      if (input) setRefused({ input, text: errorText(err) });
      setStatus({ text: errorText(err), error: true });
    }
  };
  const save = (event: Event) => {
    event.preventDefault();
    if (form) void send(settingsBody(form), 'Saved the project settings.');
  };

  const set = (change: Partial<SettingsForm>) => form && setForm({ ...form, ...change });
  const fieldError = (input: keyof SettingsForm, id: string) =>
    refused?.input === input && (
      <p id={`${id}-err`} class="field-error" data-error-for={input} role="alert">
        {refused.text}
      </p>
    );
  const invalid = (input: keyof SettingsForm, id: string) => (refused?.input === input ? { 'aria-invalid': true, 'aria-describedby': `${id}-err` } : {});
  const text = (input: 'name' | 'issuer' | 'audience' | 'jwks_url', id: string, label: string, disabled = false) =>
    form && (
      <div class="field">
        <label for={id}>{label}</label>
        <input id={id} value={form[input]} disabled={disabled} onInput={(e) => set({ [input]: e.currentTarget.value })} {...invalid(input, id)} />
        {fieldError(input, id)}
      </div>
    );

  return (
    <section aria-labelledby="project-title">
      <h2 id="project-title">Project</h2>
      {project ? (
        <dl id="project-identity" class="identity">
          {(
            [
              ['service id', project.service_id],
              ['owner id', project.owner_id],
              ['plan', project.plan ?? 'none'],
              ['active', project.active ? 'yes' : 'no (consumptions are refused)'],
            ] as const
          ).map(([term, value]) => (
            <div key={term} data-field={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      ) : (
        !status && <p class="hint">Reading…</p>
      )}
      <p id="operator-settings" class="hint">
        The plan and whether the project is active are changed by the service's operator (give them the service id above).
      </p>
      <MetricsPanel api={api} />
      {form && project && (
        <form id="settings-form" onSubmit={save}>
          <h3>Settings</h3>
          {text('name', 'settings-name', 'name')}
          <fieldset>
            <legend>External identity issuer</legend>
            <div class="field inline">
              <input id="settings-use-identity" type="checkbox" checked={form.useIdentity} onChange={(e) => set({ useIdentity: e.currentTarget.checked })} />
              <label for="settings-use-identity">users sign in with an external OIDC issuer (unchecked: none)</label>
            </div>
            {fieldError('useIdentity', 'settings-use-identity')}
            {text('issuer', 'settings-issuer', 'issuer', !form.useIdentity)}
            {text('audience', 'settings-audience', 'audience', !form.useIdentity)}
            {text('jwks_url', 'settings-jwks-url', 'JWKS url (https://)', !form.useIdentity)}
          </fieldset>
          <fieldset>
            <legend>secureRequest</legend>
            <p id="settings-key-state">
              key: <strong>{project.secure_request_key_set ? 'set' : 'not set'}</strong>{' '}
              {project.secure_request_key_set && (
                <button type="button" id="settings-key-remove" onClick={() => send({ secure_request_key: null }, 'Removed the secureRequest key.')}>
                  Remove
                </button>
              )}
            </p>
            <div class="field">
              <label for="settings-key">new key (write-only: never shown; blank keeps the stored one)</label>
              <input
                id="settings-key"
                type="password"
                autocomplete="new-password"
                value={form.key}
                onInput={(e) => set({ key: e.currentTarget.value })}
                {...invalid('key', 'settings-key')}
              />
              {fieldError('key', 'settings-key')}
            </div>
            <div class="field">
              <label for="settings-destinations">Destinations (one url a line; none = any public url)</label>
              <textarea
                id="settings-destinations"
                rows={3}
                value={form.destinations}
                onInput={(e) => set({ destinations: e.currentTarget.value })}
                {...invalid('destinations', 'settings-destinations')}
              />
              {fieldError('destinations', 'settings-destinations')}
            </div>
          </fieldset>
          <button type="submit">Save settings</button>
        </form>
      )}
      <StatusLine id="project-status" status={status} />
      <AlertsSection api={api} />
    </section>
  );
}
