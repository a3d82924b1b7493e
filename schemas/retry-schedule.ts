/**
 * The retry schedule of the work after the answer (extension, docs/api.md "Retrying work after the
 * answer"): a run that goes on after resp and fails on a retryable failure is tried again from the
 * failed action, on a schedule of delays within a window.
 */
import * as z from 'zod';
import { durationUpTo } from './durations';
import { invalidField } from './paths';
import { storedRetrySchedule } from './stored-ticket';
import { strictObject } from './strict';

export type StoredRetrySchedule = z.infer<typeof storedRetrySchedule>;
export type RetryStatus = StoredRetrySchedule['on']['statuses'][number];

export const MAX_RETRY_ATTEMPTS = 50;
export const MAX_RETRY_WITHIN_MS = 7 * 86_400_000;
export const MAX_RETRY_DELAY_MS = 86_400_000;

/** Immediately (the run itself), then 5 s, 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, then 24 h steps, 3 days in all. */
export const DEFAULT_RETRY_SCHEDULE: StoredRetrySchedule = {
  delays: ['5s', '1m', '5m', '30m', '2h', '5h', '10h', '24h', '24h'],
  within: '3d',
  attempts: 10,
  on: { statuses: [408, 429, '5xx'], network: true, timeout: true },
};

const retryOnInputSchema = strictObject({
  statuses: z
    .array(z.union([z.int(), z.literal('5xx')]))
    .optional()
    .describe("Statuses from 400 to 599, or '5xx'; default [408, 429, '5xx']."),
  network: z.boolean().optional().describe('Retry when no answer came (default true).'),
  timeout: z.boolean().optional().describe('Retry when the request ran past its time limit (default true).'),
});

export const retryScheduleInputSchema = z
  .union([
    z.literal(true),
    strictObject({
      delays: z
        .array(z.string())
        .optional()
        .describe("Waits between attempts, each from '1s' to '24h'; the last repeats. Default 5s, 1m, 5m, 30m, 2h, 5h, 10h, 24h, 24h."),
      within: z.string().optional().describe("No attempt starts later than this after the first: at most '7d', default '3d'."),
      attempts: z.number().optional().describe('Attempts in all, the first included: 2 to 50; default one more than the delays.'),
      on: retryOnInputSchema.optional(),
    }),
  ])
  .describe('Extension: retry the run after resp from the failed action on a schedule; true = the default schedule.');

type RetryScheduleInput = z.output<typeof retryScheduleInputSchema>;

const DURATION_TEXT = "a number and s, m, h or d, e.g. '5s', '30m', '24h'";

function normalizeDelays(delays: string[], withinMs: number, path: string): string[] {
  if (delays.length === 0 || delays.length > MAX_RETRY_ATTEMPTS - 1) throw invalidField(path, `must list 1 to ${MAX_RETRY_ATTEMPTS - 1} delays`);
  delays.forEach((delay, index) => {
    const ms = durationUpTo(delay, MAX_RETRY_DELAY_MS);
    if (ms === null) throw invalidField(`${path}[${index}]`, `must be a positive duration of at most 24 hours: ${DURATION_TEXT}`);
    if (ms > withinMs) throw invalidField(`${path}[${index}]`, 'is longer than the window (within): no attempt could follow it');
  });
  return delays;
}

function normalizeStatuses(statuses: RetryStatus[], path: string): RetryStatus[] {
  statuses.forEach((status, index) => {
    if (status !== '5xx' && (status < 400 || status > 599)) throw invalidField(`${path}[${index}]`, "must be a status from 400 to 599 or '5xx'");
  });
  return [...new Set(statuses)];
}

/** Validates the input form into the stored form (every default filled in); refusals name the field under `path`. */
export function normalizeRetrySchedule(input: RetryScheduleInput, path: string): StoredRetrySchedule {
  if (input === true) return DEFAULT_RETRY_SCHEDULE;
  const within = input.within ?? DEFAULT_RETRY_SCHEDULE.within;
  const withinMs = durationUpTo(within, MAX_RETRY_WITHIN_MS);
  if (withinMs === null) throw invalidField(`${path}.within`, `must be a positive duration of at most 7 days: ${DURATION_TEXT}`);
  // Without delays of its own, the schedule keeps the default delays that fit its window and attempts.
  const fitting = DEFAULT_RETRY_SCHEDULE.delays.filter((delay) => (durationUpTo(delay, MAX_RETRY_DELAY_MS) ?? Infinity) <= withinMs);
  if (!input.delays && fitting.length === 0) throw invalidField(`${path}.within`, 'is shorter than every default delay: list delays of your own');
  const own = input.delays ? normalizeDelays(input.delays, withinMs, `${path}.delays`) : undefined;
  const attempts = input.attempts ?? (own ? own.length + 1 : Math.min(DEFAULT_RETRY_SCHEDULE.attempts, fitting.length + 1));
  if (!Number.isInteger(attempts) || attempts < 2 || attempts > MAX_RETRY_ATTEMPTS) {
    throw invalidField(`${path}.attempts`, `must be a whole number from 2 to ${MAX_RETRY_ATTEMPTS} (the first attempt included)`);
  }
  const delays = own ?? fitting.slice(0, attempts - 1);
  if (delays.length > attempts - 1) {
    throw invalidField(`${path}.delays`, `lists ${delays.length} delays, but ${attempts} attempts have only ${attempts - 1} waits between them`);
  }
  const on = input.on ?? {};
  const defaults = DEFAULT_RETRY_SCHEDULE.on;
  return {
    delays,
    within,
    attempts,
    on: {
      statuses: normalizeStatuses(on.statuses ?? defaults.statuses, `${path}.on.statuses`),
      network: on.network ?? defaults.network,
      timeout: on.timeout ?? defaults.timeout,
    },
  };
}
