/** The condition parts of a ticket (spec 2.2): method, signature, ip, user_agent, rows, record_access, return200. */
import { OPERATORS } from '../../../schemas/ticket-types';
import { Field } from './Field';
import { RowsEditor } from './RowsEditor';
import { SignatureForm } from './SignatureForm';

const C = 'condition';
const OPERATOR_OPTIONS = [['', '(not checked)'] as const, ...OPERATORS.map((op) => [op, op] as const)];

export function ConditionForm() {
  return (
    <fieldset class="condition">
      <legend>Condition</legend>
      <Field
        path={[C, 'method']}
        label="method"
        kind="select"
        options={[
          ['', '(any)'],
          ['GET', 'GET'],
          ['POST', 'POST'],
        ]}
      />
      <SignatureForm />
      {(['ip', 'user_agent'] as const).map((part) => (
        <fieldset class="match" key={part}>
          <legend>{part}</legend>
          <Field path={[C, part, 'operator']} label={`${part} operator`} kind="select" options={OPERATOR_OPTIONS} />
          <Field path={[C, part, 'value']} label={`${part} value`} kind="loose" hint="Text, or a JSON list of texts." />
        </fieldset>
      ))}
      <RowsEditor path={[C, 'headers']} legend="headers" />
      <RowsEditor path={[C, 'body']} legend="body" capture />
      <RowsEditor path={[C, 'params']} legend="params" capture />
      <RowsEditor path={[C, 'user']} legend="user" />
      <Field path={[C, 'record_access']} label="record_access" hint="A record id or reference the consumer must have access to." />
      <Field path={[C, 'return200']} label="return200 (answer failures with status 200)" kind="checkbox" />
    </fieldset>
  );
}
