/**
 * How schemas/ refuses input without knowing the server: a field issue, which the route answers as
 * its error (same code, same message, status 400) and the client or the dashboard can show as is.
 */

/** The codes a refusal of schemas/ carries. */
type FieldIssueCode = 'INVALID_PARAMETER';

/** One refused field: `field` is its path (`actions[0].exe.url`, '' for the whole input); `message` starts with it. */
export interface FieldIssue {
  code: FieldIssueCode;
  message: string;
  field: string;
}

/** What a check of schemas/ returns: the value, or the first issue found. */
export type Checked<T> = { ok: true; value: T } | { ok: false; issue: FieldIssue };

/** Carries a field issue out of the nested checks up to the function that returns it. */
export class FieldIssueError extends Error {
  readonly issue: FieldIssue;

  constructor(issue: FieldIssue) {
    super(issue.message);
    this.name = 'FieldIssueError';
    this.issue = issue;
  }
}

/** Runs a check that throws FieldIssueError and returns its value or its issue; any other error propagates. */
export async function checked<T>(check: () => T | Promise<T>): Promise<Checked<T>> {
  try {
    return { ok: true, value: await check() };
  } catch (error) {
    if (error instanceof FieldIssueError) return { ok: false, issue: error.issue };
    throw error;
  }
}
