import type { ConditionRow } from '../../schemas/ticket-types';
import { compareLegacy } from './legacy-operators';
import { compare } from './operators';
import { parseKey, readPath, writePath } from './paths';

export interface RowsOutcome {
  /** The target after every setValueWhenMatch replacement (the input is never mutated). */
  target: unknown;
  /** Placeholder name -> value captured; a placeholder whose path does not exist stays unset. */
  placeholders: Record<string, unknown>;
  /** Keys (as written) whose match rows all failed, in the order the keys first appear. */
  failedKeys: string[];
  /** Previous rules only: the key of the first match row whose field is missing (an error, not a mismatch); reading stopped there. */
  missingKey?: string;
}

/** Which rules a ticket runs by: the current ones, or the previous ones of a legacy ticket (spec 9.2). */
export type RuleSet = 'current' | 'legacy';

/**
 * Reads rows against a target (spec 2.3): every row is read in order; capture-only rows (no
 * operator) capture whenever their path exists; rows sharing a key are alternatives and the first
 * that matches wins, later ones on that key are skipped; keys whose match rows all fail are listed.
 * resolveValue (the cond action's templating) is applied to value and setValueWhenMatch before use;
 * a value that resolves to an array is a list. A ticket condition passes none: values are literal.
 */
export function evaluateRows(
  rows: ConditionRow[],
  target: unknown,
  resolveValue: (value: unknown) => unknown = (value) => value,
  rules: RuleSet = 'current',
): RowsOutcome {
  let current = target;
  // A Map, turned into an object at the end, keeps a placeholder named __proto__ a plain field.
  const placeholders = new Map<string, unknown>();
  const matchedKeys = new Set<string>();
  const matchKeys = new Set<string>();

  const capture = (row: ConditionRow, path: string[]) => {
    if (row.placeholder === undefined) return;
    const read = readPath(current, path);
    if (read.found) placeholders.set(row.placeholder, read.value);
  };

  for (const row of rows) {
    const path = parseKey(row.key);
    if (row.operator === undefined) {
      capture(row, path);
      continue;
    }
    matchKeys.add(row.key);
    if (matchedKeys.has(row.key)) continue;
    const read = readPath(current, path);
    if (rules === 'legacy' && !read.found) {
      return { target: current, placeholders: Object.fromEntries(placeholders), failedKeys: [], missingKey: row.key };
    }
    const passes =
      rules === 'legacy'
        ? compareLegacy(read.value, row.operator, resolveValue(row.value))
        : compare(read.value, row.operator, resolveValue(row.value), read.found);
    if (!passes) continue;
    matchedKeys.add(row.key);
    const replacement = row.setValueWhenMatch === undefined ? null : resolveValue(row.setValueWhenMatch);
    // null replaces nothing (spec 2.3), whether written as null or resolved to it.
    if (replacement !== null && replacement !== undefined) current = writePath(current, path, replacement);
    capture(row, path);
  }

  const failedKeys = [...matchKeys].filter((key) => !matchedKeys.has(key));
  return { target: current, placeholders: Object.fromEntries(placeholders), failedKeys };
}
