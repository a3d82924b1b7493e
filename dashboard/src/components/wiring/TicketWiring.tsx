/**
 * What an owner needs to wire a provider to a ticket: the URL of each consume route with a copy
 * button, and "Send a test", which consumes the ticket from the page (a dry run, or for real through
 * /tp) with a body the owner edits, starting from the preset's sample event, and shows the answer.
 * A signed ticket refuses an unsigned test: the page says so and starts on the dry run.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorText, type OwnerApi, type OwnerProject } from '../../api';
import { presetOfSignature, sampleBody, wiringUrls, type WiringUrl } from './wiring';
import './wiring.css';

type Mode = 'check' | 'consume';
interface Answer {
  mode: Mode;
  status: number;
  passed: boolean;
  text: string;
}

interface Props {
  api: OwnerApi;
  ticketId: string;
  /** The ticket's stored condition (its signature decides the note and the sample body). */
  condition: { signature?: { header?: string; algorithm?: string; signed?: string; parts?: string[]; field?: string } } | undefined;
}

const pretty = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

export function TicketWiring({ api, ticketId, condition }: Props) {
  const [ownerId, setOwnerId] = useState<string | null>(null);
  const [copied, setCopied] = useState<{ name: string; ok: boolean } | null>(null);
  const signature = condition?.signature;
  const preset = useMemo(() => presetOfSignature(signature), [signature]);
  const [body, setBody] = useState(() => sampleBody(preset, Date.now()));
  const [mode, setMode] = useState<Mode>(signature ? 'check' : 'consume');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  useEffect(() => {
    api
      .call<OwnerProject>('GET', '/v1/owner')
      .then((project) => setOwnerId(project.owner_id))
      .catch((err) => setError(errorText(err)));
  }, []);
  useEffect(() => {
    setBody(sampleBody(preset, Date.now()));
    setMode(signature ? 'check' : 'consume');
  }, [preset, signature !== undefined]);

  const urls: WiringUrl[] = ownerId === null ? [] : wiringUrls(location.origin, api.serviceId, ownerId, ticketId);
  const copy = (url: WiringUrl) =>
    navigator.clipboard.writeText(url.url).then(
      () => setCopied({ name: url.name, ok: true }),
      () => setCopied({ name: url.name, ok: false }),
    );

  const send = async () => {
    setSending(true);
    setAnswer(null);
    setError(null);
    try {
      if (mode === 'check') {
        const judged = await api.project<{ passed: boolean; status?: number }>('POST', `/tickets/${encodeURIComponent(ticketId)}/check`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        setAnswer({ mode, status: judged.status ?? 200, passed: judged.passed, text: JSON.stringify(judged, null, 2) });
      } else {
        const res = await fetch(`/tp/${encodeURIComponent(api.serviceId)}/${encodeURIComponent(ticketId)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        setAnswer({ mode, status: res.status, passed: res.ok, text: pretty(await res.text()) });
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSending(false);
    }
  };

  return (
    <section class="wiring" id="wiring" aria-labelledby="wiring-title">
      <h3 id="wiring-title">Wire a provider</h3>
      <dl class="wiring-urls">
        {urls.map((url) => (
          <div key={url.name} data-url={url.name}>
            <dt>
              {url.method} <code>/{url.name === 'check' ? 'publ/check' : url.name}</code>
            </dt>
            <dd>
              <code class="url">{url.url}</code>{' '}
              <button
                type="button"
                data-copy={url.name}
                onClick={() => copy(url)}
                aria-label={`Copy the ${url.name === 'check' ? 'dry run' : `/${url.name}`} URL`}
              >
                {copied?.name === url.name && copied.ok ? 'Copied' : 'Copy'}
              </button>
              <span class="hint">{url.use}</span>
            </dd>
          </div>
        ))}
      </dl>
      <p id="wiring-copied" class={copied && !copied.ok ? 'status error' : 'visually-hidden'} role="status">
        {copied ? (copied.ok ? `Copied the ${copied.name} URL.` : 'The browser did not let the page copy: select the URL and copy it.') : ''}
      </p>
      {/* Not a form: the editor's form below is the page's one form (its submit is "Review and save"). */}
      <div id="send-test" role="group" aria-labelledby="send-test-title">
        <h4 id="send-test-title">Send a test</h4>
        {signature && (
          <p class="notice" id="wiring-signed-note" role="note">
            This ticket verifies {preset ? `a ${preset.name}` : 'a'} signature ({signature.header ?? signature.field}). A test sent from this page carries no
            signature, so the ticket refuses it (CONDITION_FAILED: the signature does not verify), and a real consumption logs that refusal as a failure. The
            dry run checks the signature too, runs no action and uses no count. To see a success, send a test event from{' '}
            {preset ? `${preset.name}'s` : "the provider's"} dashboard to the /tp URL above.
          </p>
        )}
        <div class="field">
          <label for="test-body">Body (JSON or text){preset ? `: a sample ${preset.name} event` : ''}</label>
          <textarea id="test-body" rows={8} spellcheck={false} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </div>
        <fieldset class="test-mode">
          <legend>Send as</legend>
          <div class="field inline">
            <input type="radio" id="test-mode-check" name="test-mode" checked={mode === 'check'} onChange={() => setMode('check')} />
            <label for="test-mode-check">dry run (judges the condition; runs no action, uses no count)</label>
          </div>
          <div class="field inline">
            <input type="radio" id="test-mode-consume" name="test-mode" checked={mode === 'consume'} onChange={() => setMode('consume')} />
            <label for="test-mode-consume">a real consumption (POST /tp: runs the actions, uses a count)</label>
          </div>
        </fieldset>
        <button type="button" id="test-send" disabled={sending} onClick={() => void send()}>
          Send the test
        </button>
      </div>
      {error && (
        <p class="status error" role="alert">
          {error}
        </p>
      )}
      {answer && (
        <div
          id="test-answer"
          class={answer.passed ? 'answer passed' : 'answer refused'}
          data-status={answer.status}
          data-passed={answer.passed ? 'true' : 'false'}
          role="status"
        >
          <p>
            <strong>{answer.mode === 'check' ? (answer.passed ? 'Dry run passed' : 'Dry run refused') : answer.passed ? 'Consumed' : 'Refused'}</strong> (HTTP{' '}
            {answer.status})
          </p>
          <pre>{answer.text}</pre>
        </div>
      )}
    </section>
  );
}
