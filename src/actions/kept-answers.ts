/**
 * What a run keeps in memory besides its template context (issue 25 item 4): the answers its Then chains
 * read as ${response} (one per chain on the stack) and its action rows (each cut as the log keeps it,
 * fitForLog, 64 KiB). An answer is kept whole up to MAX_KEPT_ANSWER_CHARS of JSON; a larger one (a req
 * reads up to 5 MiB) is kept as the log keeps it: long strings cut, or a preview. The gauge counts what the
 * runs of this isolate keep now, so a test can hold many runs and read it.
 */
import { fitForLog } from '../bytes/log-size';

/** Largest ${response} a Then chain reads whole, in JSON characters (1 MiB, the forwarded answer's cap). */
export const MAX_KEPT_ANSWER_CHARS = 1_048_576;

/** JSON characters kept by the runs of this isolate now, and the most at once. */
export const keptGauge = { now: 0, peak: 0 };

export function addKept(chars: number): void {
  keptGauge.now += chars;
  keptGauge.peak = Math.max(keptGauge.peak, keptGauge.now);
}

export const jsonChars = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

/** The answer as a Then chain keeps it, and its size in JSON characters. */
export function keptAnswer(value: unknown): { value: unknown; chars: number } {
  const chars = jsonChars(value);
  if (chars <= MAX_KEPT_ANSWER_CHARS) return { value, chars };
  const cut = fitForLog({ answer: value }, MAX_KEPT_ANSWER_CHARS);
  const kept = 'answer' in cut ? cut.answer : cut;
  return { value: kept, chars: jsonChars(kept) };
}
