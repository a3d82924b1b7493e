/** cond (spec 2.3, 2.4): rows against the answer of the enclosing action. Pure. */
import type { ConditionRow } from '../../schemas/ticket-types';
import { evaluateRows } from '../engine/rows';
import { asText } from '../engine/template';
import { ActionError } from '../http/errors';

export interface CondPass {
  /** The answer after setValueWhenMatch replacements: what later ${response...} reads. */
  answer: unknown;
  /** Placeholders the rows captured. */
  placeholders: Record<string, unknown>;
}

/**
 * Checks the rows; a key that fails throws CONDITION_FAILED with detail { field: 'response', keys }.
 * `resolve` templates a row's value and setValueWhenMatch (${response...}, ${placeholder[NAME]}).
 * A row keyed '' reads the whole answer as text (objects as compact JSON); its replacement, if any,
 * replaces the whole answer.
 */
export function checkAnswer(rows: ConditionRow[], answer: unknown, resolve: (value: unknown) => unknown): CondPass {
  const wholeRows = rows.filter((row) => row.key === '');
  if (typeof answer === 'string' || wholeRows.length === 0) {
    const outcome = evaluateRows(rows, answer, resolve);
    failOn(outcome.failedKeys);
    return { answer: outcome.target, placeholders: outcome.placeholders };
  }
  const text = asText(answer);
  const whole = evaluateRows(wholeRows, text, resolve);
  const fields = evaluateRows(rows.filter((row) => row.key !== ''), answer, resolve);
  const failed = new Set([...whole.failedKeys, ...fields.failedKeys]);
  failOn([...new Set(rows.map((row) => row.key))].filter((key) => failed.has(key)));
  return {
    answer: whole.target !== text ? whole.target : fields.target,
    placeholders: { ...whole.placeholders, ...fields.placeholders },
  };
}

function failOn(keys: string[]): void {
  if (keys.length === 0) return;
  throw new ActionError('CONDITION_FAILED', `The answer does not meet the cond rows on ${keys.map((key) => `'${key}'`).join(', ')}.`, {
    field: 'response',
    keys,
  });
}
