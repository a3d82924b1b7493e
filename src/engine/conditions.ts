import type { ConditionRow, HeaderRow, MatchPart, SignatureConfig, TicketCondition, UserRow } from '../../schemas/ticket-types';
import type { ProjectUser } from '../platform/types';
import { compare } from './operators';
import { evaluateRows } from './rows';
import type { RequestSnapshot } from './snapshot';

/** The I/O the condition needs, supplied by the caller. */
export interface ConditionPorts {
  verifySignature(config: SignatureConfig): Promise<boolean>;
  hasRecordAccess(recordId: string, user: ProjectUser): Promise<boolean>;
}

type ConditionFailureCode = 'METHOD_NOT_ALLOWED' | 'CONDITION_FAILED' | 'AUTH_REQUIRED';

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

/**
 * Headers: every listed header must be sent and match; names are case-insensitive and rows on the
 * same header are alternatives. Failed headers are reported by the name as the first row wrote it.
 */
function failedHeaders(rows: HeaderRow[], headers: Record<string, string>): string[] {
  const groups = new Map<string, { key: string; passed: boolean }>();
  for (const row of rows) {
    const name = row.key.toLowerCase();
    const group = groups.get(name) ?? { key: row.key, passed: false };
    groups.set(name, group);
    if (group.passed) continue;
    const present = Object.hasOwn(headers, name);
    group.passed = compare(present ? headers[name] : undefined, row.operator, row.value, present);
  }
  return [...groups.values()].filter((group) => !group.passed).map((group) => group.key);
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
 */
export async function evaluateCondition(
  condition: TicketCondition,
  request: RequestSnapshot,
  ports: ConditionPorts,
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
    const failed = failedHeaders(condition.headers, request.headers);
    if (failed.length > 0) return conditionFailed('headers', failed);
  }

  let body = request.body;
  let params = request.params;
  let placeholders: Record<string, unknown> = {};
  if (hasRows(condition.body)) {
    const outcome = evaluateRows(condition.body, body);
    if (outcome.failedKeys.length > 0) return conditionFailed('body', outcome.failedKeys);
    body = outcome.target;
    placeholders = { ...placeholders, ...outcome.placeholders };
  }
  if (hasRows(condition.params)) {
    const outcome = evaluateRows(condition.params, params);
    if (outcome.failedKeys.length > 0) return conditionFailed('params', outcome.failedKeys);
    params = outcome.target as Record<string, unknown>;
    placeholders = { ...placeholders, ...outcome.placeholders };
  }

  if (hasRows(condition.user)) {
    if (!request.user) return authRequired('user');
    const rows: ConditionRow[] = condition.user.map(({ key, operator, value }: UserRow) => ({ key, operator, value }));
    const outcome = evaluateRows(rows, userView(request.user));
    if (outcome.failedKeys.length > 0) return conditionFailed('user', outcome.failedKeys);
  }

  if (condition.record_access) {
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

  return { ok: true, placeholders, body, params };
}
