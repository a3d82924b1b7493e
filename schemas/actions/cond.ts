/** cond: check the answer of the enclosing action, in a Then chain. */
import { normalizeRow } from '../condition';
import { childPath } from '../paths';
import type { TemplateContext } from '../references';
import type { CondExe } from './schema';
import type { ExeScope } from './scope';
import { templated } from './templated';

/** Keys are literal; value and setValueWhenMatch may read only the answer and the placeholders. */
export function normalizeCond(exe: CondExe, scope: ExeScope, path: string): Record<string, unknown> {
  const ctx: TemplateContext = { ...scope.tpl, allowClientSecret: false, only: ['response', 'placeholder'] };
  const rowsPath = childPath(path, 'response');
  const response = exe.response.map((row, i) => {
    const rowPath = childPath(rowsPath, i);
    const stored = normalizeRow(row, rowPath);
    if (stored.value !== undefined) stored.value = templated(stored.value, ctx, childPath(rowPath, 'value'));
    if (stored.setValueWhenMatch !== undefined) {
      stored.setValueWhenMatch = templated(stored.setValueWhenMatch, ctx, childPath(rowPath, 'setValueWhenMatch'));
    }
    return stored;
  });
  return { response };
}
