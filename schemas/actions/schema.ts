/**
 * Input schemas of ticket actions (spec 2.4): the shape of each kind's exe. Rules that depend on
 * where an action stands (templates, cond placement, ${CLIENT_SECRET}) are checked by chain.ts.
 */
import * as z from 'zod';
import { ACT_KINDS, type ActKind } from '../ticket-types';
import { conditionRowSchema, operatorSchema } from '../condition';
import { ACTION_KEY_FIXES, strictObject } from '../strict';

/** An action as parsed from the registration body; `exe` is narrowed per kind by the schemas below. */
export interface ActionInput {
  act: ActKind;
  exe: Record<string, unknown>;
  err?: ActionInput[];
  retry?: boolean;
}

// Lazy because the chains of an action hold actions (actionSchema is defined at the end).
const chainSchema = z.lazy(() => z.array(actionSchema));

const requiredOr = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);
const noThenChain = (act: string) => ({
  ...ACTION_KEY_FIXES,
  actions: `${act} has no Then chain (exe.actions); put the actions after it in the same chain`,
});

const acsgExeSchema = strictObject({
  group: z.union([z.int().min(1).max(99), z.string().min(1)], {
    error: requiredOr("must be a number 1..99, 'admin' or a reference such as ${placeholder[GROUP]}"),
  }),
  user_id: z.string().min(1).optional().describe('Absent = the consumer.'),
  actions: chainSchema.optional(),
});

const acsrExeSchema = strictObject({
  record_id: z.string().min(1),
  user_id: z.union([z.string().min(1), z.array(z.string().min(1))], { error: 'must be a string or a list of strings' }).optional(),
  actions: chainSchema.optional(),
});

const accessGroupSchema = z.union([z.int().min(0).max(99), z.enum(['public', 'authorized', 'admin', 'private'])], {
  error: requiredOr("must be a number 0..99, 'public', 'authorized', 'admin' or 'private'"),
});
const subscriptionSchema = strictObject({
  is_subscription_record: z.boolean().optional(),
  upload_to_feed: z.boolean().optional(),
  notify_subscribers: z.boolean().optional(),
  feed_referencing_records: z.boolean().optional(),
  notify_referencing_records: z.boolean().optional(),
});
const pstrTableSchema = z.union(
  [
    z.string().min(1),
    strictObject({
      name: z.string().min(1),
      access_group: accessGroupSchema.optional().describe('Required in JSON registration.'),
      subscription: subscriptionSchema.nullable().optional(),
    }),
  ],
  { error: requiredOr('must be { name, access_group, subscription? }') },
);
const indexValueSchema = z.union([z.string(), z.number(), z.boolean()], {
  error: requiredOr('must be a string, number or boolean'),
});
const sourceSchema = strictObject({
  referencing_limit: z.int().min(0).nullable().optional().describe('null = infinite.'),
  prevent_multiple_referencing: z.boolean().optional(),
  can_remove_referencing_records: z.boolean().optional(),
  only_granted_can_reference: z.boolean().optional(),
  referencing_index_restrictions: z
    .array(
      strictObject({
        name: z.string().min(1),
        value: indexValueSchema.optional(),
        range: indexValueSchema.optional(),
        condition: operatorSchema.optional(),
      }),
    )
    .nullable()
    .optional(),
  allow_granted_to_grant_others: z.boolean().optional(),
});

export const pstrExeSchema = strictObject({
  table: pstrTableSchema,
  data: z.unknown().optional(),
  index: strictObject({ name: z.string().min(1), value: indexValueSchema }).optional(),
  tags: z.array(z.string()).optional(),
  unique_id: z.string().min(1).optional(),
  record_id: z.string().min(1).optional(),
  reference: z.string().min(1).nullable().optional(),
  readonly: z.boolean().optional(),
  source: sourceSchema.optional(),
  user_id: z.string().min(1).optional(),
  actions: chainSchema.optional(),
});

export const reqExeSchema = strictObject({
  url: z.string().min(1),
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE']).optional(),
  secretName: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  data: z.unknown().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  actions: chainSchema.optional(),
});

const mailExeSchema = strictObject({
  template: z.string().min(1),
  to: z.string().min(1),
  placeholders: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string, number or boolean' })).optional(),
  actions: chainSchema.optional(),
});

const nlsdExeSchema = strictObject({
  group: z.union([z.int().min(2).max(99), z.string().min(1)], {
    error: requiredOr("must be 'public', 'authorized', a number 2..99 or a group name"),
  }),
  newsletter: z.string().min(1),
  actions: chainSchema.optional(),
});

const respExeSchema = strictObject(
  {
    status: z.union([z.int().min(100).max(599), z.string()], { error: 'must be a number 100..599 or a reference' }).optional(),
    body: z.unknown().optional(),
    resume: z
      .union([z.string().min(1), z.int()], {
        error: "must be 'stop', a delay such as '0m', '10m', '2h', '3d', a time in ms or a reference",
      })
      .optional(),
  },
  noThenChain('resp'),
);

const condExeSchema = strictObject({ response: z.array(conditionRowSchema) }, noThenChain('cond'));

export type AcsgExe = z.infer<typeof acsgExeSchema>;
export type AcsrExe = z.infer<typeof acsrExeSchema>;
export type PstrExe = z.infer<typeof pstrExeSchema>;
export type ReqExe = z.infer<typeof reqExeSchema>;
export type MailExe = z.infer<typeof mailExeSchema>;
export type NlsdExe = z.infer<typeof nlsdExeSchema>;
export type RespExe = z.infer<typeof respExeSchema>;
export type CondExe = z.infer<typeof condExeSchema>;

const withRetry = <A extends ActKind, E extends z.ZodType>(act: A, exe: E) =>
  strictObject({ act: z.literal(act), exe, err: chainSchema.optional(), retry: z.boolean().optional() });
const withoutRetry = <A extends ActKind, E extends z.ZodType>(act: A, exe: E) =>
  strictObject({ act: z.literal(act), exe, err: chainSchema.optional() }, { ...ACTION_KEY_FIXES, retry: 'retry is not available on resp and cond actions' });

export const actionSchema: z.ZodType<ActionInput> = z.discriminatedUnion(
  'act',
  [
    withRetry('acsg', acsgExeSchema),
    withRetry('acsr', acsrExeSchema),
    withRetry('pstr', pstrExeSchema),
    withRetry('req', reqExeSchema),
    withRetry('mail', mailExeSchema),
    withRetry('nlsd', nlsdExeSchema),
    withoutRetry('resp', respExeSchema),
    withoutRetry('cond', condExeSchema),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${ACT_KINDS.join(', ')}` : undefined) },
);
