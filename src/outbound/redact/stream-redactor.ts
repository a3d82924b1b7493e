/**
 * Redacts the secret from a text that arrives piece by piece, with exactly the result redactSecret gives for
 * the whole text: whatever the pieces, the concatenation of what push and end return equals
 * redactSecret(whole text). A copy (as written or escaped, redact.ts) may be split across pieces, even in the
 * middle of an escape ('%2' | '5...'), so push holds back the end of the text seen so far from the first
 * index where a copy could still begin: a partial copy that runs to the end, or whose next character is an
 * escape the end cuts short (unfinished-escapes.ts). Everything before that index is final and passed on, the
 * copies in it replaced as redactSecret replaces them (leftmost first, longest there); an index inside such a
 * copy is no start, since redactSecret goes on after the copy. An escape cut short is held back whatever
 * character it may turn into, so a trailing '%4' or '&am' waits for the next piece even when the secret does
 * not need it.
 *
 * Bound: what is held back is a proper prefix of a copy, so it is shorter than the longest copy, one
 * LONGEST_COPY_PER_CHAR (18^3 = 5,832 units, the longest character escaped three layers deep) per character
 * of the secret; with one more unit for a surrogate pair split between pieces, at most maxHeldLength(secret)
 * = 5,832 × the secret's length. Indexes further back are never tried as the start of a partial copy, so
 * hostile text cannot make the hold-back grow.
 *
 * Linear-ish: each push searches what it holds back again with the new piece, once with redactSecret's walk
 * (copyEnds) and once to find the first index a copy could start from; the hold-back is usually a few
 * characters, at worst maxHeldLength.
 */
import { EscapeReader } from './escape-reader';
import {
  checkBudget,
  copySpans,
  isLowSurrogateOfPair,
  LONGEST_COPY_PER_CHAR,
  MAX_ESCAPE_DEPTH,
  REDACTED,
  redactSecret,
  replaceSpans,
  type SearchBudget,
  type Span,
} from './redact';
import { UnfinishedEscapes } from './unfinished-escapes';

const POSITIONS_PER_CHECK = 32_768;

/** The most text push ever holds back for `secret`, in UTF-16 units. */
export const maxHeldLength = (secret: string): number => [...secret].length * LONGEST_COPY_PER_CHAR;

/**
 * The first index from which the text could still turn into a copy once more text arrives: the secret's first
 * characters (each as written or escaped) read from there up to the end, or up to an escape that the end cuts
 * short. Indexes inside a span (not its start) are skipped: redactSecret never starts a copy there. Partial
 * copies are followed forward, keeping for each index and count of characters read the earliest start.
 * Returns text.length when there is none.
 */
async function firstOpenStart(reader: EscapeReader, secret: number[], spans: Span[], budget: SearchBudget): Promise<number> {
  const text = reader.text;
  const end = text.length;
  const unfinished = new UnfinishedEscapes(reader);
  const firstStart = end - (secret.length * LONGEST_COPY_PER_CHAR - 1); // a partial copy is shorter than a copy
  const lastCut = end - LONGEST_COPY_PER_CHAR; // an escape starting here or before ends before the end
  const candidate = new RegExp(`[\\u{${secret[0].toString(16)}}%\\\\&${reader.plusIsSpace ? '+' : ''}]`, 'gu');
  // index → (characters of the secret read → earliest start)
  const arrivals = new Map<number, Map<number, number>>();
  let best = end;
  let span = 0;
  let sinceCheck = 0;
  for (let pos = Math.max(0, firstStart); ; ) {
    if (arrivals.size === 0) {
      candidate.lastIndex = pos;
      const found = candidate.exec(text);
      if (!found || found.index >= best) break;
      pos = found.index;
    }
    const partials = arrivals.get(pos) ?? new Map<number, number>();
    arrivals.delete(pos);
    if (pos === end) {
      for (const start of partials.values()) best = Math.min(best, start);
      break;
    }
    while (span < spans.length && spans[span].end <= pos) span++;
    const insideSpan = span < spans.length && spans[span].start < pos;
    if (pos < best && !insideSpan && !isLowSurrogateOfPair(text, pos)) partials.set(0, pos);
    const cp = text.codePointAt(pos) as number;
    const width = cp > 0xffff ? 2 : 1;
    if (partials.size > 0 && pos > lastCut && unfinished.cutShort(pos, MAX_ESCAPE_DEPTH)) {
      for (const start of partials.values()) best = Math.min(best, start);
    }
    const readings = reader.startsEscape(cp) ? reader.read(pos, MAX_ESCAPE_DEPTH) : [{ cp, end: pos + width }];
    for (const reading of readings) {
      for (const [read, start] of partials) {
        if (start >= best || reading.cp !== secret[read] || read + 1 === secret.length) continue;
        let at = arrivals.get(reading.end);
        if (!at) arrivals.set(reading.end, (at = new Map()));
        const known = at.get(read + 1);
        if (known === undefined || start < known) at.set(read + 1, start);
      }
    }
    pos += width;
    if (++sinceCheck === POSITIONS_PER_CHECK) {
      sinceCheck = 0;
      await checkBudget(budget);
    }
  }
  return best;
}

/** One per stream; await each push before the next. */
export class StreamRedactor {
  private held = '';
  private readonly codePoints: number[];
  private readonly plusIsSpace: boolean;

  constructor(
    private readonly secret: string,
    private readonly budget: SearchBudget,
    private readonly replacement = REDACTED,
  ) {
    this.codePoints = [...secret].map((ch) => ch.codePointAt(0) as number);
    this.plusIsSpace = this.codePoints.includes(0x20);
  }

  /** Text of the next piece in; returns the text now safe to pass on (may be ''), copies replaced. */
  async push(text: string): Promise<string> {
    if (!this.secret) return text;
    const whole = this.held + text;
    // A high surrogate at the end may pair with the next piece: it is held back and not searched yet.
    const searched = /[\uD800-\uDBFF]$/.test(whole) ? whole.slice(0, -1) : whole;
    const reader = new EscapeReader(searched, { plusIsSpace: this.plusIsSpace });
    const spans = await copySpans(reader, this.codePoints, this.budget);
    const safe = await firstOpenStart(reader, this.codePoints, spans, this.budget);
    this.held = whole.slice(safe);
    return replaceSpans(searched, spans, safe, this.replacement);
  }

  /** The stream ended: returns everything held back, copies replaced. */
  async end(): Promise<string> {
    const rest = this.held;
    this.held = '';
    return redactSecret(rest, this.secret, this.budget, this.replacement);
  }
}
