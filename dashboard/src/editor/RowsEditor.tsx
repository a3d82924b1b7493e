/** A list of rows (condition headers, body, params, user; a cond's response): key, operator, value and, where the schema has them, placeholder and setValueWhenMatch. */
import { useContext } from 'preact/hooks';
import { OPERATORS } from '../../../schemas/ticket-types';
import { getAt, type Segment } from '../logic/json-path';
import { EditorContext } from './context';
import { Field } from './Field';

interface RowsEditorProps {
  path: readonly Segment[];
  legend: string;
  /** body, params and response rows: operator optional (capture-only), placeholder and setValueWhenMatch. */
  capture?: boolean;
}

export function RowsEditor({ path, legend, capture = false }: RowsEditorProps) {
  const { def, set } = useContext(EditorContext);
  const rows = getAt(def, path);
  const list = Array.isArray(rows) ? rows : [];
  const operators = [...(capture ? [['', '(capture only)'] as const] : [['', '(choose)'] as const]), ...OPERATORS.map((op) => [op, op] as const)];
  const remove = (i: number) => {
    const next = list.filter((_, j) => j !== i);
    set(path, next.length ? next : undefined);
  };
  return (
    <fieldset class="rows">
      <legend>{legend}</legend>
      {list.map((_, i) => (
        <div class="row" key={i}>
          <Field path={[...path, i, 'key']} label="key" />
          <Field path={[...path, i, 'operator']} label="operator" kind="select" options={operators} />
          <Field path={[...path, i, 'value']} label="value" kind="loose" />
          {capture && <Field path={[...path, i, 'placeholder']} label="placeholder" />}
          {capture && <Field path={[...path, i, 'setValueWhenMatch']} label="setValueWhenMatch" kind="loose" />}
          <button type="button" class="remove" onClick={() => remove(i)} aria-label={`Remove ${legend} row ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => set(path, [...list, { key: '' }])}>
        Add {legend} row
      </button>
    </fieldset>
  );
}
