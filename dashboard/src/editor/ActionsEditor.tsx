/** An action chain (actions, a Then chain exe.actions, an err chain): each action's kind, exe fields by kind, its own chains, retry. */
import { useContext, useState } from 'preact/hooks';
import type { ActKind } from '../../../schemas/ticket-types';
import { getAt, joinSegments, type Segment } from '../logic/json-path';
import { ACTION_KINDS, KIND_OPTIONS } from './action-kinds';
import { EditorContext, inputId } from './context';
import { Field } from './Field';
import { RowsEditor } from './RowsEditor';

interface ChainProps {
  path: readonly Segment[];
  legend: string;
  depth?: number;
}

export function ActionsEditor({ path, legend, depth = 0 }: ChainProps) {
  const { def, set } = useContext(EditorContext);
  const value = getAt(def, path);
  const list = Array.isArray(value) ? (value as unknown[]) : [];
  const [kind, setKind] = useState<ActKind>('req');
  const addId = `${inputId(joinSegments(path))}-add`;
  // The top-level list is required (actions: []); a nested chain left empty is removed.
  const write = (next: unknown[]) => set(path, next.length || depth === 0 ? next : undefined);
  return (
    <fieldset class={`chain depth-${Math.min(depth, 3)}`}>
      <legend>{legend}</legend>
      {list.map((_, i) => (
        <ActionEditor key={i} path={[...path, i]} index={i} depth={depth} remove={() => write(list.filter((_, j) => j !== i))} />
      ))}
      <div class="add-action">
        <label for={addId}>New action of kind</label>
        <select id={addId} value={kind} onChange={(e) => setKind(e.currentTarget.value as ActKind)}>
          {KIND_OPTIONS.map(([k, text]) => (
            <option value={k} key={k}>
              {text}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => write([...list, { act: kind, exe: kind === 'cond' ? { response: [] } : {} }])}>
          Add to {legend}
        </button>
      </div>
    </fieldset>
  );
}

function ActionEditor({ path, index, depth, remove }: { path: readonly Segment[]; index: number; depth: number; remove(): void }) {
  const { def } = useContext(EditorContext);
  const act = getAt(def, [...path, 'act']) as ActKind;
  const form = ACTION_KINDS[act];
  const exe = [...path, 'exe'] as const;
  return (
    <fieldset class="action">
      <legend>
        Action {index + 1}: {act}
      </legend>
      {/* Changing the kind keeps exe as is: the registry names any field the new kind does not take. */}
      <Field path={[...path, 'act']} label="kind" kind="select" options={KIND_OPTIONS} hint={form ? undefined : 'Unknown kind: fix it in JSON mode.'} />
      {form?.fields.map((field) => (
        <Field key={field.key.join('.')} path={[...exe, ...field.key]} label={field.label} kind={field.kind} options={field.options} hint={field.hint} />
      ))}
      {form?.responseRows && <RowsEditor path={[...exe, 'response']} legend="response" capture />}
      {form?.retry && <Field path={[...path, 'retry']} label="retry (run again on failure)" kind="checkbox" />}
      {form?.then && <ActionsEditor path={[...exe, 'actions']} legend={`Then chain of action ${index + 1}`} depth={depth + 1} />}
      <ActionsEditor path={[...path, 'err']} legend={`err chain of action ${index + 1}`} depth={depth + 1} />
      <button type="button" class="remove" onClick={remove}>
        Remove action {index + 1}
      </button>
      {!form && <p class="field-error">Unknown kind {String(act)}.</p>}
    </fieldset>
  );
}
