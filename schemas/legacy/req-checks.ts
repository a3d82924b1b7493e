/**
 * Spec 9.3: a req action of the previous rules could check its answer with `condition` (or the older
 * `match`) rows, on the action or in its exe. On import those rows become a cond action at the head of
 * the req's Then chain, which reads the same answer. Pure; works on the raw input before validation.
 */
import { FieldIssueError } from '../field-issue';
import { childPath, invalidField } from '../paths';
import { validateTemplate, type TemplateContext } from '../references';

const CHECK_KEYS = ['condition', 'match'] as const;
const COND_VALUES: TemplateContext = { inThen: true, inErr: false, allowClientSecret: false, only: ['response', 'placeholder'] };

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The actions with every req answer check moved into a cond action; anything else is left for validation to judge. */
export function convertReqChecks(actions: unknown, path: string): unknown {
  if (!Array.isArray(actions)) return actions;
  return actions.map((action, i) => convertAction(action, childPath(path, i)));
}

function convertAction(action: unknown, path: string): unknown {
  if (!isRecord(action) || !isRecord(action.exe)) return action;
  const givenExe = action.exe;
  const exePath = childPath(path, 'exe');
  const converted: Record<string, unknown> = { ...action, exe: { ...givenExe } };
  const exe = converted.exe as Record<string, unknown>;
  if (Array.isArray(exe.actions)) exe.actions = convertReqChecks(exe.actions, childPath(exePath, 'actions'));
  if (Array.isArray(converted.err)) converted.err = convertReqChecks(converted.err, childPath(path, 'err'));
  if (action.act !== 'req') return converted;

  const found = [
    ...CHECK_KEYS.filter((key) => key in action).map((key) => ({ holder: converted, key, path: childPath(path, key) })),
    ...CHECK_KEYS.filter((key) => key in givenExe).map((key) => ({ holder: exe, key, path: childPath(exePath, key) })),
  ];
  if (found.length === 0) return converted;
  if (found.length > 1) {
    throw invalidField(found[1].path, `give the answer check once: ${found.map((f) => f.path).join(' and ')} are two names for the same rows`);
  }
  const [check] = found;
  const rows = check.holder[check.key];
  delete check.holder[check.key];
  if (!Array.isArray(rows))
    throw invalidField(check.path, 'must be a list of rows ({ key, operator?, value?, setValueWhenMatch?, placeholder? }) on the answer');
  rows.forEach((row, i) => checkConvertible(row, childPath(check.path, i)));
  const then = Array.isArray(exe.actions) ? exe.actions : exe.actions === undefined ? [] : undefined;
  if (then === undefined) return converted;
  exe.actions = [{ act: 'cond', exe: { response: rows } }, ...then];
  return converted;
}

/** A cond row's value may read only the answer and placeholders; say how to get there when it reads more. */
function checkConvertible(row: unknown, path: string): void {
  if (!isRecord(row)) return;
  for (const member of ['value', 'setValueWhenMatch'] as const) {
    forEachString(row[member], childPath(path, member), (text, at) => {
      try {
        validateTemplate(text, COND_VALUES, at);
      } catch (error) {
        if (!(error instanceof FieldIssueError) || text.includes('${result')) throw error;
        throw invalidField(
          at,
          'cannot become a cond row: a cond action in the Then chain may read only ${response...} and ${placeholder[NAME]}; capture the value with a condition row (placeholder: NAME) and compare with ${placeholder[NAME]}',
        );
      }
    });
  }
}

function forEachString(value: unknown, path: string, visit: (text: string, path: string) => void): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => forEachString(item, childPath(path, i), visit));
  else if (isRecord(value)) for (const [key, item] of Object.entries(value)) forEachString(item, childPath(path, key), visit);
}
