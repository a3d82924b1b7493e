/**
 * Bulk replay (issue 36 item 4, an extension): the owner's filter over a ticket's log or its dead letters,
 * the pace, and whether actions that already succeeded run again (a full replay). The answers' shapes are
 * in answers.ts.
 */
import * as z from 'zod';
import { strictObject } from './strict';

/** A selection names at most this many consumptions; a filter may match at most MAX_REPLAY_ENTRIES. */
export const MAX_SELECTED_IDS = 1_000;
export const MAX_REPLAY_ENTRIES = 100_000;
export const MAX_PER_MINUTE = 600;
export const DEFAULT_PER_MINUTE = 60;
export const REPLAY_OUTCOMES = ['failed', 'ok', 'any'] as const;

const CONSUME_ID = z.string().regex(/^[0-9A-Za-z]{5,32}$/, 'must be a consume_id');
const time = z.int().min(0).max(8_640_000_000_000_000);

export const bulkReplayFilterSchema = strictObject(
  {
    consume_ids: z.array(CONSUME_ID).min(1).max(MAX_SELECTED_IDS).optional(),
    from: time.optional(),
    to: time.optional(),
    outcome: z.enum(REPLAY_OUTCOMES).optional(),
    code: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{1,63}$/, 'must be an error code such as REQUEST_FAILED')
      .optional(),
    dead_letters: z.boolean().optional(),
  },
  {},
).superRefine((filter, ctx) => {
  if (filter.from !== undefined && filter.to !== undefined && filter.to < filter.from)
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
  if (filter.dead_letters && (filter.outcome !== undefined || filter.code !== undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [filter.outcome !== undefined ? 'outcome' : 'code'],
      message: 'does not apply to dead_letters (each one is a failed run)',
    });
  }
});
export type BulkReplayFilter = z.infer<typeof bulkReplayFilterSchema>;

export const bulkReplayRequestSchema = strictObject(
  {
    filter: bulkReplayFilterSchema,
    dry_run: z.boolean().optional(),
    per_minute: z.int().min(1).max(MAX_PER_MINUTE).optional(),
    full: z.boolean().optional(),
  },
  {},
);
export type BulkReplayRequest = z.infer<typeof bulkReplayRequestSchema>;

export const REPLAY_STATES = ['running', 'cancelled', 'finished'] as const;
export type ReplayState = (typeof REPLAY_STATES)[number];

/** Why an entry of a bulk replay did not run. */
export const REPLAY_SKIPS = ['succeeded_actions', 'not_kept', 'gone', 'code_differs', 'no_count_left', 'interrupted'] as const;
export type ReplaySkip = (typeof REPLAY_SKIPS)[number];
