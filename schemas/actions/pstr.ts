/** pstr: post a record. Registration here is JSON mode, where every table states its access_group. */
import { childPath, invalidField } from '../paths';
import type { PstrExe } from './schema';
import type { ExeScope } from './scope';
import { templated } from './templated';

export function normalizePstr(exe: PstrExe, scope: ExeScope, path: string): Record<string, unknown> {
  const tablePath = childPath(path, 'table');
  if (typeof exe.table === 'string') {
    throw invalidField(tablePath, 'every pstr table requires access_group in JSON registration: write { "name": ..., "access_group": ... }');
  }
  if (exe.table.access_group === undefined) {
    throw invalidField(childPath(tablePath, 'access_group'), 'is required: every pstr table requires access_group in JSON registration');
  }
  const needsUser = (field: string, what: string) => {
    if (exe.user_id === undefined) throw invalidField(field, `${what} needs user_id (the project owner cannot hold it)`);
  };
  if (exe.table.access_group === 'private') needsUser(childPath(tablePath, 'access_group'), "a 'private' record");
  if (exe.table.subscription) needsUser(childPath(tablePath, 'subscription'), 'a subscription record');
  if (exe.readonly === true) needsUser(childPath(path, 'readonly'), 'a read-only record');

  const { actions: _thenChain, ...fields } = exe;
  return templated(fields, scope.tpl, path);
}
