/** resp (spec 2.4): the checks on its templated status, body and resume. Pure. */
import { MAX_RESUME_DELAY_MS } from '../limits';
import { ActionError } from '../wire/errors';

export type Resume = { stop: true } | { stop: false; at: number };

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DELAY = /^(0|[1-9][0-9]*)([mhd])$/;
const INTEGER_TEXT = /^[1-9][0-9]*$/;

const failed = (message: string, detail?: Record<string, unknown>) => new ActionError('ACTION_FAILED', message, detail);

/**
 * The status to answer: an integer 200..599, or text of one (a header or query value). 100..199
 * are in the spec's range but HTTP cannot answer with an informational status, so they fail.
 */
export function respStatus(value: unknown): number {
  const status = typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    throw failed('The resp status must be a number 100..599.', { status: value ?? null });
  }
  if (status < 200) throw failed('The resp status cannot be informational (100..199): HTTP answers with a final status.', { status });
  return status;
}

/** The body to answer: the receipt when absent; a 'stage' key at the top would make it read as an error. */
export function respBody(value: unknown, receipt: { tkid: string; hash: string }): unknown {
  if (value === undefined) return { tkid: receipt.tkid, hash: receipt.hash };
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, 'stage')) {
    throw failed("The resp body cannot have a 'stage' key at the top: it marks error bodies.");
  }
  return value;
}

/**
 * 'stop' (the run ends), '0m' (go on at once), '10m' / '2h' / '3d' (after that delay), or a time in
 * ms since the epoch (a past time goes on at once). At most MAX_RESUME_DELAY_MS ahead.
 */
export function respResume(value: unknown, now: number): Resume {
  let at: number | undefined;
  if (value === undefined || value === 'stop') return { stop: true };
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    at = Math.max(now, value);
  } else if (typeof value === 'string') {
    const delay = DELAY.exec(value);
    if (delay) at = now + Number(delay[1]) * UNIT_MS[delay[2] as keyof typeof UNIT_MS];
    else if (INTEGER_TEXT.test(value)) at = Math.max(now, Number(value));
  }
  if (at === undefined || !Number.isSafeInteger(at)) {
    throw failed("The resp resume must be 'stop', '0m', a delay such as '10m', '2h' or '3d', or a time in ms since the epoch.", {
      resume: value ?? null,
    });
  }
  if (at - now > MAX_RESUME_DELAY_MS) throw failed('The resp resume is more than 366 days ahead.', { resume: value ?? null });
  return { stop: false, at };
}
