/**
 * The check-time request condition of the previous rules (spec 9.2, 9.3): a request sent before any
 * action runs, whose answer its rows judge. A legacy ticket keeps it and runs it; the current rules
 * refuse it at registration.
 */
import * as z from 'zod';
import { normalizeReq } from '../actions/req';
import { reqExeSchema } from '../actions/schema';
import { conditionRowSchema, normalizeRow } from '../condition';
import { parseOrRefuse } from '../issues';
import type { ExistenceCheck } from '../lookups';
import { childPath, invalidField } from '../paths';
import { strictObject } from '../strict';
import type { RequestCondition } from '../ticket-types';

const { actions: _thenChain, ...reqShape } = reqExeSchema.shape;

export const requestConditionSchema = strictObject({
  ...reqShape,
  condition: z.array(conditionRowSchema).optional().describe('Rows on the answer (the body alone on a ticket without rules_version).'),
  match: z.array(conditionRowSchema).optional().describe('Older name of condition.'),
});

/** Validates the request condition at `path` and returns its stored form; named secrets go to `checks`. */
export function normalizeRequestCondition(input: unknown, path: string, now: number, checks: ExistenceCheck[]): RequestCondition {
  const parsed = parseOrRefuse(requestConditionSchema, input, path);
  if (parsed.condition !== undefined && parsed.match !== undefined) {
    throw invalidField(childPath(path, 'match'), 'match is the older name of condition; give condition only');
  }
  const { condition, match, ...exe } = parsed;
  const scope = { tpl: { inThen: false, inErr: false, allowClientSecret: false }, now, checks };
  const rowsPath = childPath(path, condition !== undefined ? 'condition' : 'match');
  return {
    exe: normalizeReq(exe, scope, path),
    rows: (condition ?? match ?? []).map((row, i) => normalizeRow(row, childPath(rowsPath, i))),
  };
}
