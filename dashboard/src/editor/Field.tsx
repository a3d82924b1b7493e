/**
 * One labelled input bound to a path of the definition. Kinds: text (empty removes the member), loose
 * (text or another JSON value, logic/loose-value.ts), json (any JSON value; text that does not parse
 * stays in the input with a message and changes nothing), number, checkbox, select.
 */
import { useContext, useEffect, useState } from 'preact/hooks';
import { getAt, joinSegments, type Segment } from '../logic/json-path';
import { looseText, parseLoose } from '../logic/loose-value';
import { EditorContext, inputId } from './context';

export type FieldKind = 'text' | 'loose' | 'json' | 'number' | 'checkbox' | 'select';

interface FieldProps {
  path: readonly Segment[];
  label: string;
  kind?: FieldKind;
  /** select: the values (an empty value removes the member). */
  options?: readonly (readonly [value: string, text: string])[];
  hint?: string;
}

export function Field({ path, label, kind = 'text', options = [], hint }: FieldProps) {
  const { def, set, issue } = useContext(EditorContext);
  const p = joinSegments(path);
  const id = inputId(p);
  const value = getAt(def, path);
  const error = issue?.path === p ? issue.message : null;
  const [jsonText, setJsonText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const shownJson = value === undefined ? '' : JSON.stringify(value, null, 2);
  // A change made elsewhere (JSON mode, a preset) shows here unless the input holds text that does not parse yet.
  useEffect(() => {
    if (kind === 'json' && !jsonError) setJsonText(shownJson);
  }, [shownJson]);

  const message = error ?? jsonError;
  const described = [hint ? `${id}-hint` : '', message ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'data-path': p, 'aria-invalid': message ? true : undefined, 'aria-describedby': described } as const;

  let input;
  switch (kind) {
    case 'checkbox':
      input = <input type="checkbox" {...common} checked={value === true} onChange={(e) => set(path, e.currentTarget.checked ? true : undefined)} />;
      break;
    case 'select':
      input = (
        <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => set(path, e.currentTarget.value || undefined)}>
          {options.map(([v, text]) => (
            <option value={v} key={v}>
              {text}
            </option>
          ))}
        </select>
      );
      break;
    case 'number':
      input = (
        <input
          type="number"
          {...common}
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(e) => set(path, e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value))}
        />
      );
      break;
    case 'json':
      input = (
        <textarea
          {...common}
          rows={Math.min(8, Math.max(2, jsonText.split('\n').length))}
          spellcheck={false}
          value={jsonText}
          onInput={(e) => {
            const text = e.currentTarget.value;
            setJsonText(text);
            if (text.trim() === '') {
              setJsonError(null);
              return set(path, undefined);
            }
            try {
              const parsed = JSON.parse(text) as unknown;
              setJsonError(null);
              set(path, parsed);
            } catch {
              setJsonError('Not valid JSON yet: the definition keeps the last valid value.');
            }
          }}
        />
      );
      break;
    case 'loose':
      input = <input {...common} value={looseText(value)} onInput={(e) => set(path, parseLoose(e.currentTarget.value))} />;
      break;
    default:
      input = (
        <input
          {...common}
          value={typeof value === 'string' ? value : looseText(value)}
          onInput={(e) => set(path, e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
        />
      );
  }

  return (
    <div class={`field field-${kind}`}>
      <label for={id}>{label}</label>
      {input}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {message && (
        <p id={`${id}-err`} class="field-error" data-error-for={p} role="alert">
          {message}
        </p>
      )}
    </div>
  );
}
