import type { ConditionRow, HeaderRow, MatchPart, RequestCondition, SignatureConfig, TicketCondition, UserRow } from '../../schemas/ticket-types';
import type { ProjectUser } from '../platform/types';
import { compareLegacy } from './legacy-operators';
import { compare } from './operators';
import { evaluateRows, type RowsOutcome, type RuleSet } from './rows';
import type { RequestSnapshot } from './snapshot';

/** What the check-time request of a legacy ticket came back with: the answer its rows read, or why it failed. */
export type RequestConditionAnswer =
  | { ok: true; answer: unknown }
  | {
      ok: false;
      code: 'REQUEST_FAILED' | 'ACTION_FORBIDDEN' | 'TIMEOUT' | 'PATH_NOT_FOUND' | 'PLACEHOLDER_MISSING' | 'AUTH_REQUIRED';
      message: string;
      detail?: Record<string, unknown>;
    };

/** The I/O the condition needs, supplied by the caller. */
export interface ConditionPorts {
  verifySignature(config: SignatureConfig): Promise<boolean>;
  hasRecordAccess(recordId: string, user: ProjectUser): Promise<boolean>;
  /** Legacy tickets only: sends the check-time request (spec 9.2). */
  sendRequestCondition?(
    request: RequestCondition,
    reading: { body: unknown; params: Record<string, unknown>; placeholders: Record<string, unknown> },
  ): Promise<RequestConditionAnswer>;
}

type ConditionFailureCode = 'METHOD_NOT_ALLOWED' | 'CONDITION_FAILED' | 'AUTH_REQUIRED' | 'PATH_NOT_FOUND' | RequestConditionFailure['code'];
type RequestConditionFailure = Extract<RequestConditionAnswer, { ok: false }>;

export type ConditionResult =
  | { ok: true; placeholders: Record<string, unknown>; body: unknown; params: Record<string, unknown> }
  | { ok: false; code: ConditionFailureCode; message: string; detail?: Record<string, unknown> };

type Failure = Extract<ConditionResult, { ok: false }>;

/** detail { field, keys }; the message names the keys unless the only key is the field itself (ip). */
const conditionFailed = (field: string, keys: string[]): Failure => ({
  ok: false,
  code: 'CONDITION_FAILED',
  message:
    keys.length === 1 && keys[0] === field
      ? `The request does not meet the condition on ${field}.`
      : `The request does not meet the condition on ${field}: ${keys.join(', ')}.`,
  detail: { field, keys },
});

const authRequired = (field: 'user' | 'record_access'): Failure => ({
  ok: false,
  code: 'AUTH_REQUIRED',
  message: `The condition on ${field} needs a signed-in request.`,
  detail: { field },
});

/** ip / user_agent: any listed value matches ('!=': none does). '', [] or a null value is no check. */
function matchPartFails(part: MatchPart | undefined, actual: string): boolean {
  if (!part || part.value === '' || part.value === null || (Array.isArray(part.value) && part.value.length === 0)) {
    return false;
  }
  return !compare(actual, part.operator, part.value, true);
}

/** Previous rules: a row on a field the request does not carry fails the consumption as an error. */
const missingField = (field: string, key: string): Failure => ({
  ok: false,
  code: 'PATH_NOT_FOUND',
  message: field === 'request' ? `The answer of the check-time request has no field '${key}'.` : `The request has no ${field} field '${key}'.`,
  detail: { field, key },
});

/**
 * Headers: every listed header must be sent and match; names are case-insensitive and rows on the
 * same header are alternatives. Failed headers are reported by the name as the first row wrote it.
 * Under the previous rules a name matches only as written (the runtime hands header names over in
 * lowercase) and a header not sent is an error.
 */
function headerFailure(rows: HeaderRow[], headers: Record<string, string>, rules: RuleSet): Failure | undefined {
  const groups = new Map<string, { key: string; passed: boolean }>();
  for (const row of rows) {
    const name = rules === 'legacy' ? row.key : row.key.toLowerCase();
    const group = groups.get(name) ?? { key: row.key, passed: false };
    groups.set(name, group);
    if (group.passed) continue;
    const present = Object.hasOwn(headers, name);
    if (rules === 'legacy') {
      if (!present) return missingField('headers', row.key);
      group.passed = compareLegacy(headers[name], row.operator, row.value);
    } else {
      group.passed = compare(present ? headers[name] : undefined, row.operator, row.value, present);
    }
  }
  const failed = [...groups.values()].filter((group) => !group.passed).map((group) => group.key);
  return failed.length > 0 ? conditionFailed('headers', failed) : undefined;
}

/** The rows' failure, if any: a missing field (previous rules) or the keys that did not pass. */
function rowsFailure(field: string, outcome: RowsOutcome): Failure | undefined {
  if (outcome.missingKey !== undefined) return missingField(field, outcome.missingKey);
  return outcome.failedKeys.length > 0 ? conditionFailed(field, outcome.failedKeys) : undefined;
}

/** What user rows read: the user's attributes plus user_id, email and access_group (which win). */
function userView(user: ProjectUser): Record<string, unknown> {
  const view: Record<string, unknown> = { ...user.attributes, user_id: user.user_id, access_group: user.access_group };
  if (user.email !== undefined) view.email = user.email;
  else delete view.email;
  return view;
}

/** A signature check that throws counts as not verified (spec 2.2 rule 6: "for any reason"). */
async function signatureVerifies(ports: ConditionPorts, config: SignatureConfig): Promise<boolean> {
  try {
    return (await ports.verifySignature(config)) === true;
  } catch {
    return false;
  }
}

const hasRows = <T>(rows: T[] | undefined): rows is T[] => Array.isArray(rows) && rows.length > 0;

/**
 * Evaluates a ticket condition (spec 2.2, 2.3) part by part in the order method, signature, ip,
 * user_agent, headers, body, params, user, record_access, and reports the first part that fails.
 * return200 is not the engine's business. On success, placeholders of body then params rows (a name
 * captured in both keeps the params value) and body/params after setValueWhenMatch replacements.
 * A legacy ticket runs by the previous rules (spec 9.2): see rows.ts, legacy-operators.ts, record_access
 * not checked, and its check-time request last.
 */
export async function evaluateCondition(
  condition: TicketCondition,
  request: RequestSnapshot,
  ports: ConditionPorts,
  rules: RuleSet = 'current',
): Promise<ConditionResult> {
  if (condition.method && condition.method !== request.method) {
    return {
      ok: false,
      code: 'METHOD_NOT_ALLOWED',
      message: `This ticket accepts only ${condition.method} requests.`,
    };
  }
  if (condition.signature && !(await signatureVerifies(ports, condition.signature))) {
    return {
      ok: false,
      code: 'CONDITION_FAILED',
      message: 'The request signature does not verify.',
      detail: { field: 'signature' },
    };
  }
  if (matchPartFails(condition.ip, request.ip)) return conditionFailed('ip', ['ip']);
  if (matchPartFails(condition.user_agent, request.user_agent)) return conditionFailed('user_agent', ['user_agent']);

  if (hasRows(condition.headers)) {
    const failed = headerFailure(condition.headers, request.headers, rules);
    if (failed) return failed;
  }

  const identity = (value: unknown) => value;
  let body = request.body;
  let params = request.params;
  let placeholders: Record<string, unknown> = {};
  if (hasRows(condition.body)) {
    const outcome = evaluateRows(condition.body, body, identity, rules);
    const failed = rowsFailure('body', outcome);
    if (failed) return failed;
    body = outcome.target;
    placeholders = { ...placeholders, ...outcome.placeholders };
  }
  if (hasRows(condition.params)) {
    const outcome = evaluateRows(condition.params, params, identity, rules);
    const failed = rowsFailure('params', outcome);
    if (failed) return failed;
    params = outcome.target as Record<string, unknown>;
    placeholders = { ...placeholders, ...outcome.placeholders };
  }

  if (hasRows(condition.user)) {
    if (!request.user) return authRequired('user');
    const rows: ConditionRow[] = condition.user.map(({ key, operator, value }: UserRow) => ({ key, operator, value }));
    const failed = rowsFailure('user', evaluateRows(rows, userView(request.user), identity, rules));
    if (failed) return failed;
  }

  if (condition.record_access && rules === 'current') {
    if (!request.user) return authRequired('record_access');
    // A failing record store is a server fault, not a refusal: the port's rejection propagates.
    if (!(await ports.hasRecordAccess(condition.record_access, request.user))) {
      return {
        ok: false,
        code: 'CONDITION_FAILED',
        message: 'The signed-in user has no access to the record the condition names.',
        detail: { field: 'record_access' },
      };
    }
  }

  if (condition.request && rules === 'legacy') {
    const checked = await checkRequestCondition(condition.request, { body, params, placeholders }, ports);
    if (!checked.ok) return checked;
    placeholders = { ...placeholders, ...checked.placeholders };
  }

  return { ok: true, placeholders, body, params };
}

/** A legacy ticket's check-time request: sent, then its rows read the answer (field 'request'). */
async function checkRequestCondition(
  request: RequestCondition,
  reading: { body: unknown; params: Record<string, unknown>; placeholders: Record<string, unknown> },
  ports: ConditionPorts,
): Promise<Failure | { ok: true; placeholders: Record<string, unknown> }> {
  if (!ports.sendRequestCondition) throw new Error('a legacy request condition needs the sendRequestCondition port');
  const sent = await ports.sendRequestCondition(request, reading);
  if (!sent.ok) return sent;
  const outcome = evaluateRows(request.rows, sent.answer, (value) => value, 'legacy');
  return rowsFailure('request', outcome) ?? { ok: true, placeholders: outcome.placeholders };
}
