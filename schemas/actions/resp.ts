/** resp: answer the caller now, then stop or go on. */
import { childPath, invalidField } from '../paths';
import { hasReference, isWholeReference } from '../references';
import type { RespExe } from './schema';
import type { ExeScope } from './scope';
import { templated } from './templated';

/** 'stop', '0m' (go on at once) or a positive delay in minutes, hours or days. */
const RESUME_LITERAL = /^(?:stop|0m|[1-9][0-9]*[mhd])$/;

export function normalizeResp(exe: RespExe, scope: ExeScope, path: string): Record<string, unknown> {
  const statusPath = childPath(path, 'status');
  let status: number | string = exe.status ?? 200;
  if (typeof status === 'string') {
    status = templated(status, scope.tpl, statusPath);
    if (!isWholeReference(status)) throw invalidField(statusPath, 'must be a number 100..599 or one reference such as ${placeholder[STATUS]}');
  }

  const resumePath = childPath(path, 'resume');
  let resume: number | string = exe.resume ?? 'stop';
  if (typeof resume === 'number') {
    if (resume <= scope.now) throw invalidField(resumePath, 'a time in ms since the epoch must be in the future');
  } else {
    resume = templated(resume, scope.tpl, resumePath);
    if (!hasReference(resume) && !RESUME_LITERAL.test(resume)) {
      throw invalidField(resumePath, "must be 'stop', '0m', a delay such as '10m', '2h' or '3d', a time in ms since the epoch or a reference");
    }
  }

  const stored: Record<string, unknown> = { status, resume };
  if (exe.body !== undefined) {
    const bodyPath = childPath(path, 'body');
    if (exe.body !== null && typeof exe.body === 'object' && !Array.isArray(exe.body) && Object.hasOwn(exe.body, 'stage')) {
      throw invalidField(childPath(bodyPath, 'stage'), "a 'stage' key is refused at the top of a resp body (it marks error bodies)");
    }
    stored.body = templated(exe.body, scope.tpl, bodyPath);
  }
  return stored;
}
