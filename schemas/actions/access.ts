/** acsg (set an access group) and acsr (grant access to a record). */
import { childPath, invalidField } from '../paths';
import { hasReference } from '../references';
import type { AcsgExe, AcsrExe } from './schema';
import type { ExeScope } from './scope';
import { templated } from './templated';

/** 'admin' is stored as 99, the group it stands for, so the engine only meets numbers or references. */
export function normalizeAcsg(exe: AcsgExe, scope: ExeScope, path: string): Record<string, unknown> {
  const stored: Record<string, unknown> = {};
  const groupPath = childPath(path, 'group');
  if (typeof exe.group === 'number' || exe.group === 'admin') {
    stored.group = exe.group === 'admin' ? 99 : exe.group;
  } else {
    stored.group = templated(exe.group, scope.tpl, groupPath);
    if (!hasReference(exe.group)) {
      throw invalidField(groupPath, "must be a number 1..99, 'admin' or a reference such as ${placeholder[GROUP]}");
    }
  }
  if (exe.user_id !== undefined) stored.user_id = templated(exe.user_id, scope.tpl, childPath(path, 'user_id'));
  return stored;
}

export function normalizeAcsr(exe: AcsrExe, scope: ExeScope, path: string): Record<string, unknown> {
  const stored: Record<string, unknown> = { record_id: templated(exe.record_id, scope.tpl, childPath(path, 'record_id')) };
  if (exe.user_id !== undefined) stored.user_id = templated(exe.user_id, scope.tpl, childPath(path, 'user_id'));
  return stored;
}
