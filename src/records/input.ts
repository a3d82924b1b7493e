import { pstrExeSchema } from '../../schemas/actions/schema';
import { ActionError } from '../wire/errors';
import { describeIssue, issueField } from '../platform/validation';
import { accessGroupOf } from './access-group';
import type { AccessGroup, IndexValue, SourceSettings, SubscriptionSettings } from './types';

/** A pstr exe after templating, in the shape the records store writes. */
export interface RecordInput {
  table: { name: string; access_group?: AccessGroup; subscription?: SubscriptionSettings | null };
  /** Present (possibly null) when data was given; absent keeps the stored data on update. */
  data?: { value: unknown };
  index?: { name: string; value: IndexValue };
  tags?: string[];
  unique_id?: string;
  record_id?: string;
  /** Record id or unique id; null removes the reference on update. */
  reference?: string | null;
  readonly?: boolean;
  source?: SourceSettings;
  user_id?: string;
}

/**
 * Checks the rendered exe again: a reference may have filled a field with a value of the wrong type
 * (an object as table name, a number as unique_id). Such a run fails with ACTION_FAILED naming the field.
 */
export function parseRecordInput(rendered: unknown): RecordInput {
  const result = pstrExeSchema.safeParse(rendered);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ActionError('ACTION_FAILED', `pstr: ${describeIssue(issue)}`, { field: issueField(issue) });
  }
  const exe = result.data;
  const table =
    typeof exe.table === 'string'
      ? { name: exe.table }
      : {
          name: exe.table.name,
          ...(exe.table.access_group !== undefined ? { access_group: accessGroupOf(exe.table.access_group) } : {}),
          ...(exe.table.subscription !== undefined ? { subscription: exe.table.subscription } : {}),
        };
  const input: RecordInput = { table };
  if (exe.data !== undefined) input.data = { value: exe.data };
  if (exe.index !== undefined) input.index = exe.index;
  if (exe.tags !== undefined) input.tags = exe.tags;
  if (exe.unique_id !== undefined) input.unique_id = exe.unique_id;
  if (exe.record_id !== undefined) input.record_id = exe.record_id;
  if (exe.reference !== undefined) input.reference = exe.reference;
  if (exe.readonly !== undefined) input.readonly = exe.readonly;
  if (exe.source !== undefined) input.source = exe.source;
  if (exe.user_id !== undefined) input.user_id = exe.user_id;
  return input;
}
