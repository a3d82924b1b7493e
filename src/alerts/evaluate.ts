/**
 * The pure part of alert evaluation: whether a rule's condition holds over what was observed, and what the
 * rule does next (open an incident, resolve it, note that its condition turned false, or nothing). No I/O:
 * src/alerts/run.ts reads the observations from D1 and writes the steps back.
 */
import type { AlertKind, RuleBounds } from '../../schemas/alerts';

const MINUTE_MS = 60_000;

/** What the evaluation read for one rule over its window; each kind reads its own members. */
export interface Observation {
  consumptions?: number;
  failed?: number;
  /** The longest run of consecutive failed consumptions of the rule's ticket (or of any ticket of the project). */
  streak?: number;
  /** p95 latency of the consumptions in the window, ms; null when there were none. */
  p95_ms?: number | null;
  flood_refused?: number;
  dead_letters?: number;
  /** Destinations paused now. */
  paused?: number;
}

export interface Verdict {
  holds: boolean;
  /** What an incident shows of it: the value compared, the bound, and the volume where one applies. */
  observed: Record<string, number | null>;
}

const count = (value: number | undefined) => value ?? 0;

/** Whether the condition of a rule of `kind` with `bounds` holds over `seen`. */
export function verdictOf(kind: AlertKind, bounds: RuleBounds, seen: Observation): Verdict {
  switch (kind) {
    case 'failure_rate': {
      const consumptions = count(seen.consumptions);
      const failed = count(seen.failed);
      const percent = consumptions > 0 ? (failed * 100) / consumptions : 0;
      const bound = bounds.threshold_percent ?? 100;
      const volume = bounds.min_volume ?? 1;
      return {
        holds: consumptions >= volume && percent > bound,
        observed: { value: Math.round(percent * 100) / 100, bound, consumptions, failed, min_volume: volume },
      };
    }
    case 'failure_streak': {
      const streak = count(seen.streak);
      const bound = bounds.failures ?? 1;
      return { holds: streak >= bound, observed: { value: streak, bound } };
    }
    case 'p95_latency': {
      const p95 = seen.p95_ms ?? null;
      const bound = bounds.p95_ms ?? 0;
      return { holds: p95 !== null && p95 > bound, observed: { value: p95, bound } };
    }
    case 'flood_refused':
      return { holds: count(seen.flood_refused) > 0, observed: { value: count(seen.flood_refused), bound: 0 } };
    case 'dead_letter':
      return { holds: count(seen.dead_letters) > 0, observed: { value: count(seen.dead_letters), bound: 0 } };
    case 'destination_paused':
      return { holds: count(seen.paused) > 0, observed: { value: count(seen.paused), bound: 0 } };
  }
}

/** The part of a rule's row its next step depends on. */
export interface RuleProgress {
  open_incident: string | null;
  /** When the condition of the open incident was first seen false (since it last held). */
  false_since: number | null;
  last_resolved: number | null;
  window_minutes: number;
  cooldown_minutes: number;
}

export type Step =
  | { step: 'none' }
  /** The condition holds, but the last incident resolved less than cooldown_minutes ago. */
  | { step: 'cooling_down'; until: number }
  | { step: 'open' }
  /** The open incident's condition is false now: note since when. */
  | { step: 'mark_false'; since: number }
  /** The open incident's condition holds again before it resolved: forget when it was false. */
  | { step: 'clear_false' }
  /** The open incident's condition has been false for the whole window. */
  | { step: 'resolve' };

/**
 * What a rule does after an evaluation at `now`: one incident per episode, opened once, resolved once the
 * condition has stayed false for window_minutes; none opens within cooldown_minutes of the last resolve.
 */
export function nextStep(rule: RuleProgress, holds: boolean, now: number): Step {
  if (rule.open_incident !== null) {
    if (holds) return rule.false_since === null ? { step: 'none' } : { step: 'clear_false' };
    if (rule.false_since === null) return { step: 'mark_false', since: now };
    return now - rule.false_since >= rule.window_minutes * MINUTE_MS ? { step: 'resolve' } : { step: 'none' };
  }
  if (!holds) return { step: 'none' };
  if (rule.last_resolved !== null) {
    const until = rule.last_resolved + rule.cooldown_minutes * MINUTE_MS;
    if (now < until) return { step: 'cooling_down', until };
  }
  return { step: 'open' };
}

/** The minute buckets a rule's window covers at `now`: the minute holding `now` and the window_minutes - 1 before it. */
export function windowRange(now: number, windowMinutes: number): { from: number; to: number } {
  const minute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  return { from: minute - (windowMinutes - 1) * MINUTE_MS, to: now };
}
