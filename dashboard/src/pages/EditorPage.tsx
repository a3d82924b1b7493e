/**
 * The ticket editor: form mode and JSON mode over one in-memory definition. Save checks the
 * definition with the registry's own rules in the page, asks the registry for the plan, shows its
 * diff, then registers; every refusal is shown at the input of the field it names.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ListedTicket } from '../../../schemas/listings';
import { TICKET_ID_PATTERN } from '../../../schemas/ticket';
import { ApiError, NetworkError, errorText, type OwnerApi } from '../api';
import { EditorContext, type Definition } from '../editor/context';
import { ActionsEditor } from '../editor/ActionsEditor';
import { ConditionForm } from '../editor/ConditionForm';
import { Field } from '../editor/Field';
import { nearestShownPath, setAt, type Segment } from '../logic/json-path';
import { NEW_DEFINITION, byteLength, definitionOf, tooLargeMessage } from '../logic/definition';
import { registryRefusal } from '../registry-check';
import { PlanView, type Plan } from '../components/PlanView';
import { MetricsPanel } from '../components/charts/MetricsPanel';
import { TicketWiring } from '../components/wiring/TicketWiring';
import { StatusLine, type Status } from '../components/StatusLine';

type Mode = 'form' | 'json';
interface Refusal {
  field: string;
  message: string;
}

export function EditorPage({ api, ticketId: openedId }: { api: OwnerApi; ticketId: string | null }) {
  const [def, setDef] = useState<Definition>(NEW_DEFINITION);
  const [ticketId, setTicketId] = useState(openedId ?? '');
  const [mode, setMode] = useState<Mode>('form');
  const [jsonText, setJsonText] = useState('');
  const [jsonIssue, setJsonIssue] = useState<string | null>(null);
  const [jsonChecked, setJsonChecked] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [shownIssue, setShownIssue] = useState<{ path: string; message: string } | null>(null);
  const [status, setStatus] = useState<Status>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [legacy, setLegacy] = useState<{ count?: number; moved: boolean } | null>(null);
  const [confirmedLegacy, setConfirmedLegacy] = useState(false);
  const [busy, setBusy] = useState(false);
  /** The ticket as stored (an opened ticket's wiring reads its signature). */
  const [stored, setStored] = useState<ListedTicket | null>(null);
  const root = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (!openedId) return;
    api
      .project<ListedTicket & { registered_count?: number | null }>('GET', `/tickets/${encodeURIComponent(openedId)}`)
      .then((ticket) => {
        const { definition, movedUnderBody } = definitionOf(ticket);
        setStored(ticket);
        setDef(definition);
        setLegacy({ count: ticket.count, moved: movedUnderBody });
      })
      .catch((err) => setStatus({ text: errorText(err), error: true }));
  }, [openedId]);

  // A refusal lands on the input of its field, or of the closest enclosing field shown; else in the status line.
  useEffect(() => {
    if (!refusal) return setShownIssue(null);
    const shown = new Set(Array.from(root.current?.querySelectorAll<HTMLElement>('[data-path]') ?? [], (el) => el.dataset.path ?? ''));
    const path = mode === 'form' ? nearestShownPath(refusal.field, shown) : null;
    setShownIssue(path === null ? null : { path, message: refusal.message });
    if (path === null) setStatus({ text: refusal.message, error: true });
  }, [refusal, mode]);
  useEffect(() => {
    if (!shownIssue) return;
    const input = Array.from(root.current?.querySelectorAll<HTMLElement>('[data-path]') ?? []).find((el) => el.dataset.path === shownIssue.path);
    input?.focus();
  }, [shownIssue]);

  const set = (path: readonly Segment[], value: unknown) => {
    setDef((current) => setAt(current, path, value) as Definition);
    setPlan(null);
  };

  /** The definition as the current mode holds it, or null (with the reason shown) when it cannot be read. */
  const currentDefinition = (): Definition | null => {
    if (mode === 'form') return def;
    const tooLarge = tooLargeMessage(byteLength(jsonText));
    if (tooLarge) return (setJsonIssue(tooLarge), null);
    try {
      const parsed = JSON.parse(jsonText) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return (setJsonIssue('The definition must be a JSON object.'), null);
      return parsed as Definition;
    } catch (err) {
      return (setJsonIssue(`The definition is not valid JSON: ${(err as Error).message}`), null);
    }
  };

  const switchTo = (next: Mode) => {
    if (next === mode) return;
    if (next === 'json') {
      setJsonText(JSON.stringify(def, null, 2));
      setJsonIssue(null);
    } else {
      const parsed = currentDefinition();
      if (!parsed) return;
      setDef(parsed);
    }
    setMode(next);
  };

  // JSON mode shows the registry's issue at its field path as the text changes.
  useEffect(() => {
    if (mode !== 'json') return;
    const timer = setTimeout(async () => {
      const tooLarge = tooLargeMessage(byteLength(jsonText));
      if (tooLarge) return setJsonIssue(tooLarge);
      let parsed: unknown;
      try {
        parsed = JSON.parse(jsonText);
      } catch (err) {
        return setJsonIssue(`Not valid JSON: ${(err as Error).message}`);
      }
      const issue = await registryRefusal(ticketId || 'ticket', parsed);
      setJsonIssue(issue ? `At ${issue.field || 'the whole definition'}: ${issue.message}` : null);
      setJsonChecked(true);
    }, 250);
    setJsonChecked(false);
    return () => clearTimeout(timer);
  }, [jsonText, mode, ticketId]);

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.code === 'INVALID_PARAMETER') {
      setRefusal({ field: err.field, message: `${err.code}: ${err.message}` });
      if (mode === 'json') setJsonIssue(`${err.code}: ${err.message}`);
    } else if (err instanceof NetworkError) {
      setStatus({ text: 'The service could not be reached (network failure): the ticket was not saved. Your edit is kept; save again.', error: true });
    } else setStatus({ text: errorText(err), error: true });
  };

  const review = async (event: Event) => {
    event.preventDefault();
    setRefusal(null);
    setStatus(null);
    setPlan(null);
    const definition = currentDefinition();
    if (!definition) return;
    if (mode === 'json') setDef(definition);
    if (!TICKET_ID_PATTERN.test(ticketId))
      return setRefusal({ field: 'ticket_id', message: 'ticket_id: an id is 1 to 64 letters, digits, _ or -, starting with a letter or digit' });
    const issue = await registryRefusal(ticketId, definition);
    if (issue) return fail(new ApiError(400, issue.code, issue.message, issue.field, issue));
    setBusy(true);
    try {
      setPlan(await api.project<Plan>('POST', `/tickets/${encodeURIComponent(ticketId)}/plan`, definition));
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    if (legacy?.moved && !confirmedLegacy) return setStatus({ text: 'Confirm the references moved under [body] before saving.', error: true });
    const definition = currentDefinition();
    if (!definition) return;
    setBusy(true);
    try {
      const saved = await api.project<ListedTicket>('PUT', `/tickets/${encodeURIComponent(ticketId)}`, definition);
      setPlan(null);
      setLegacy({ count: saved.count, moved: false });
      setStored(saved);
      setStatus({ text: `Saved ${saved.ticket_id}.` });
      if (!openedId) history.replaceState(null, '', `#/tickets/${encodeURIComponent(saved.ticket_id)}/edit`);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const idIssue = shownIssue?.path === 'ticket_id' ? shownIssue.message : null;
  return (
    <section aria-labelledby="editor-title">
      <h2 id="editor-title">{openedId ? `Edit ticket ${openedId}` : 'New ticket'}</h2>
      {legacy?.moved && (
        <p class="notice" role="note">
          This ticket was imported as legacy and saved before rules_version 2: the references to a req action's answer were moved under [body]
          (docs/migrating.md). Check them; saving asks you to confirm.
        </p>
      )}
      {openedId && <MetricsPanel api={api} ticketId={openedId} />}
      {openedId && stored && <TicketWiring api={api} ticketId={openedId} condition={stored.condition} />}
      {openedId && <h3 id="definition-title">Definition</h3>}
      <div class="modes" role="group" aria-label="Editing mode">
        <button type="button" aria-pressed={mode === 'form'} onClick={() => switchTo('form')}>
          Form mode
        </button>
        <button type="button" aria-pressed={mode === 'json'} onClick={() => switchTo('json')}>
          JSON mode
        </button>
      </div>
      <form ref={root} onSubmit={review} noValidate>
        <div class="field">
          <label for="ticket-id">ticket_id</label>
          <input
            id="ticket-id"
            data-path="ticket_id"
            value={ticketId}
            readOnly={openedId !== null}
            aria-invalid={idIssue ? true : undefined}
            aria-describedby={idIssue ? 'ticket-id-err' : undefined}
            onInput={(e) => setTicketId(e.currentTarget.value)}
          />
          {idIssue && (
            <p id="ticket-id-err" class="field-error" data-error-for="ticket_id" role="alert">
              {idIssue}
            </p>
          )}
        </div>
        {mode === 'form' ? (
          <EditorContext.Provider value={{ def, set, issue: shownIssue }}>
            <Field path={['description']} label="description" />
            <Field
              path={['count']}
              label="count"
              kind="loose"
              hint={legacy?.count !== undefined ? `${legacy.count} left; blank keeps the registered count, null = unlimited.` : 'Blank or null = unlimited.'}
            />
            <Field path={['limit_per_user']} label="limit_per_user" kind="loose" hint="true (once), a number, or false (unlimited)." />
            <Field path={['time_to_live']} label="time_to_live" kind="loose" hint={ttlHint(def.time_to_live)} />
            <ConditionForm />
            <ActionsEditor path={['actions']} legend="Actions" />
          </EditorContext.Provider>
        ) : (
          <div class="field">
            <label for="definition-json">Definition (JSON)</label>
            <textarea
              id="definition-json"
              rows={24}
              spellcheck={false}
              value={jsonText}
              aria-describedby="json-issue"
              onInput={(e) => {
                setJsonText(e.currentTarget.value);
                setPlan(null);
              }}
            />
            <p id="json-issue" class={jsonIssue ? 'field-error' : 'hint'} role="status">
              {jsonIssue ??
                (jsonChecked
                  ? "The registry's rules find nothing to refuse (the service still checks the names of Secret Keys, templates and newsletters)."
                  : 'Checking…')}
            </p>
          </div>
        )}
        <button type="submit" disabled={busy}>
          Review and save
        </button>
      </form>
      {plan && (
        <PlanView plan={plan}>
          {legacy?.moved && (
            <div class="field">
              <input type="checkbox" id="confirm-legacy" checked={confirmedLegacy} onChange={(e) => setConfirmedLegacy(e.currentTarget.checked)} />
              <label for="confirm-legacy">I checked the references moved under [body]; save under the current rules.</label>
            </div>
          )}
          <button type="button" id="confirm-save" disabled={busy} onClick={save}>
            Confirm save
          </button>
        </PlanView>
      )}
      <StatusLine id="editor-status" status={status} />
    </section>
  );
}

function ttlHint(ttl: unknown): string {
  const base = 'Absolute expiry in ms since the epoch; blank = never.';
  return typeof ttl === 'number' ? `${base} Expires ${new Date(ttl).toLocaleString()}.` : base;
}
