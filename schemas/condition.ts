/**
 * The ticket condition (spec 2.2, 2.3): input schemas and the stored form. Condition keys and values
 * are literal text, so ${...} in them is not a reference and is not checked here.
 */
import * as z from 'zod';
import { OPERATORS, type ConditionRow, type HeaderRow, type MatchPart, type TicketCondition, type UserRow } from './ticket-types';
import type { ExistenceCheck } from './lookups';
import { childPath, invalidField } from './paths';
import { PLACEHOLDER_NAME, parseRowKey } from './references';
import { HEADER_NAME, normalizeSignature, signatureInputSchema } from './signature';
import { HANDSHAKES } from './signature-presets';
import { applyPreset, checkHandshake, presetReferenceSchema } from './condition-preset';
import { strictObject } from './strict';

const requiredOr = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

export const operatorSchema = z.enum(OPERATORS, { error: requiredOr(`must be one of ${OPERATORS.join(', ')}`) });

const scalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const userScalarSchema = z.union([z.string(), z.number(), z.boolean()]);

/** A row of body, params, data (older name of body) and of a cond action's response. */
export const conditionRowSchema = strictObject({
  key: z.string().describe("Path written without ${ }: 'id', 'order[id]'."),
  operator: operatorSchema.optional().describe('Absent = capture-only row.'),
  value: z.union([scalarSchema, z.array(scalarSchema)], { error: 'must be a string, number, boolean, null or a list of those' }).optional(),
  setValueWhenMatch: z.unknown().optional(),
  placeholder: z.string().regex(PLACEHOLDER_NAME, 'must match ^[A-Za-z_][A-Za-z0-9_]*$').optional(),
});
export type ConditionRowInput = z.infer<typeof conditionRowSchema>;

const matchPartSchema = strictObject({
  operator: operatorSchema.optional(),
  value: z
    .union([z.string(), z.array(z.string()), z.null()], { error: 'must be a string or a list of strings' })
    .optional()
    .describe("'', [], null or absent = the part is not checked."),
});

const headerRowSchema = strictObject({
  key: z.string().regex(HEADER_NAME, 'must be an HTTP header name'),
  operator: operatorSchema,
  value: z.union([z.string(), z.array(z.string())], {
    error: requiredOr('must be a string or a list of strings (null is refused)'),
  }),
});

const userRowSchema = strictObject({
  key: z.string().min(1),
  operator: operatorSchema,
  value: z.union([userScalarSchema, z.array(userScalarSchema)], {
    error: requiredOr('must be a string, number, boolean or a list of those (null is refused)'),
  }),
});

export const conditionInputSchema = strictObject(
  {
    return200: z.boolean().optional(),
    method: z.enum(['GET', 'POST']).optional(),
    signature: signatureInputSchema.optional(),
    ip: matchPartSchema.optional(),
    user_agent: matchPartSchema.optional(),
    headers: z.array(headerRowSchema).optional(),
    body: z.array(conditionRowSchema).optional(),
    data: z.array(conditionRowSchema).optional().describe('Older name of body; stored as body.'),
    params: z.array(conditionRowSchema).optional(),
    user: z.array(userRowSchema).optional(),
    record_access: z.string().optional(),
    preset: presetReferenceSchema
      .optional()
      .describe('Extension: a provider preset (list_signature_presets) expanded into signature, headers and handshake at registration.'),
    handshake: z.enum(HANDSHAKES).optional().describe("Extension: answer this provider's handshake (docs/signatures.md)."),
  },
  {
    request:
      'the check-time request condition was removed: send the request with a req action and check its answer with a cond action inside exe.actions (the Then chain)',
  },
);
export type ConditionInput = z.infer<typeof conditionInputSchema>;

/** Checks a row key's path syntax and copies the row, keeping only the members that were given. */
export function normalizeRow(row: ConditionRowInput, path: string): ConditionRow {
  try {
    parseRowKey(row.key);
  } catch (error) {
    throw invalidField(childPath(path, 'key'), (error as Error).message);
  }
  const stored: ConditionRow = { key: row.key };
  if (row.operator !== undefined) stored.operator = row.operator;
  if (row.value !== undefined) stored.value = row.value;
  if (row.setValueWhenMatch !== undefined) stored.setValueWhenMatch = row.setValueWhenMatch;
  if (row.placeholder !== undefined) stored.placeholder = row.placeholder;
  return stored;
}

function normalizeMatchPart(part: z.infer<typeof matchPartSchema>, path: string): MatchPart | undefined {
  const { operator, value } = part;
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) return undefined;
  if (operator === undefined) throw invalidField(childPath(path, 'operator'), 'is required when a value is given');
  return { operator, value };
}

/** Validates the condition and returns its stored form: empty parts dropped, data stored as body, defaults filled. */
export function normalizeCondition(given: ConditionInput, path: string, checks: ExistenceCheck[]): TicketCondition {
  const input = given.preset ? applyPreset(given, path) : given;
  const condition: TicketCondition = {};
  if (input.return200 !== undefined) condition.return200 = input.return200;
  if (input.method !== undefined) condition.method = input.method;
  if (input.signature) condition.signature = normalizeSignature(input.signature, childPath(path, 'signature'), checks);

  for (const part of ['ip', 'user_agent'] as const) {
    const given = input[part];
    const stored = given && normalizeMatchPart(given, childPath(path, part));
    if (stored) condition[part] = stored;
  }
  if (input.headers?.length) condition.headers = input.headers.map((row): HeaderRow => ({ ...row }));

  if (input.body !== undefined && input.data !== undefined) {
    throw invalidField(childPath(path, 'data'), 'data is the older name of body; give body only');
  }
  const bodyField = input.body !== undefined ? 'body' : 'data';
  const bodyRows = input.body ?? input.data;
  if (bodyRows?.length) {
    if (input.method === 'GET') {
      throw invalidField(childPath(path, bodyField), 'a GET ticket has no body: remove the rows or set method to POST');
    }
    condition.body = bodyRows.map((row, i) => normalizeRow(row, childPath(childPath(path, bodyField), i)));
  }
  if (input.params?.length) {
    condition.params = input.params.map((row, i) => normalizeRow(row, childPath(childPath(path, 'params'), i)));
  }
  if (input.user?.length) condition.user = input.user.map((row): UserRow => ({ ...row }));
  if (input.record_access) condition.record_access = input.record_access;
  if (input.handshake) condition.handshake = checkHandshake(input.handshake, condition, path);
  return condition;
}
