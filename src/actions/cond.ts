/** cond (spec 2.3, 2.4): rows against the answer of the enclosing action. Pure. */
import type { ConditionRow } from '../../schemas/ticket-types';
import { evaluateRows, type RowsOutcome, type RuleSet } from '../engine/rows';
import { asText } from '../engine/template';
import { ActionError } from '../wire/errors';

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
export function checkAnswer(rows: ConditionRow[], answer: unknown, resolve: (value: unknown) => unknown, rules: RuleSet = 'current'): CondPass {
  const evaluate = (some: ConditionRow[], target: unknown) => missingFails(evaluateRows(some, target, resolve, rules));
  const wholeRows = rows.filter((row) => row.key === '');
  if (typeof answer === 'string' || wholeRows.length === 0) {
    const outcome = evaluate(rows, answer);
    failOn(outcome.failedKeys);
    return { answer: outcome.target, placeholders: outcome.placeholders };
  }
  const text = asText(answer);
  const whole = evaluate(wholeRows, text);
  const fields = evaluate(
    rows.filter((row) => row.key !== ''),
    answer,
  );
  const failed = new Set([...whole.failedKeys, ...fields.failedKeys]);
  failOn([...new Set(rows.map((row) => row.key))].filter((key) => failed.has(key)));
  return {
    answer: whole.target !== text ? whole.target : fields.target,
    placeholders: { ...whole.placeholders, ...fields.placeholders },
  };
}

/** Under the previous rules a row on a field the answer lacks is an error, not a mismatch. */
function missingFails(outcome: RowsOutcome): RowsOutcome {
  if (outcome.missingKey === undefined) return outcome;
  throw new ActionError('PATH_NOT_FOUND', `The answer has no field '${outcome.missingKey}'.`, { field: 'response', key: outcome.missingKey });
}

function failOn(keys: string[]): void {
  if (keys.length === 0) return;
  throw new ActionError('CONDITION_FAILED', `The answer does not meet the cond rows on ${keys.map((key) => `'${key}'`).join(', ')}.`, {
    field: 'response',
    keys,
  });
}
