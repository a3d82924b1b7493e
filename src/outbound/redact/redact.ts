/**
 * Replaces every copy of a secret in a text by the text ${CLIENT_SECRET}: as written, or escaped up to three
 * times over with percent-encoding, backslash escapes and HTML character references, mixed per character
 * (escape-reader.ts). A copy escaped four times is not found. Percent-encoding includes form encoding ('+'
 * for a space), since the service itself form-encodes data and params (URLSearchParams) and a destination
 * may echo them.
 *
 * Linear-ish: a bit-parallel shift-and pass (one bit per secret character) walks the text once and finds
 * where copies end; escapes are only decoded where the text holds %, \ or & (and + when the secret holds a
 * space), at most three layers deep, and each decoding is remembered. Only before the ends found are starts
 * tried, each index at most once.
 */
import { EscapeReader } from './escape-reader';

export const REDACTED = '${CLIENT_SECRET}';
export const MAX_ESCAPE_DEPTH = 3;

/** The consumption's time budget; the search yields now and then so the clock can move. */
export interface SearchBudget {
  deadline: number;
  now(): number;
}

/** The budget ran out during the search. */
export class SearchTimeout extends Error {
  constructor() {
    super('The time budget ran out while the response was searched for the secret.');
    this.name = 'SearchTimeout';
  }
}

const POSITIONS_PER_CHECK = 32_768;
/** The longest reading of one character: an 18-character escape (&DiacriticalGrave;) three layers deep. */
export const LONGEST_COPY_PER_CHAR = 18 ** MAX_ESCAPE_DEPTH;

export async function checkBudget(budget: SearchBudget): Promise<void> {
  // Workers move the clock only between events, so yield before reading it.
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (budget.now() >= budget.deadline) throw new SearchTimeout();
}

/** Shift-and state: bit i set = the first i+1 secret characters were read, ending here. */
class BitMasks {
  readonly words: number;
  readonly lastWord: number;
  readonly lastBit: number;
  private readonly masks = new Map<number, Uint32Array>();

  constructor(secret: number[]) {
    this.words = (secret.length + 31) >>> 5;
    this.lastWord = (secret.length - 1) >>> 5;
    this.lastBit = 2 ** ((secret.length - 1) & 31);
    secret.forEach((cp, i) => {
      let mask = this.masks.get(cp);
      if (!mask) this.masks.set(cp, (mask = new Uint32Array(this.words)));
      mask[i >>> 5] |= 2 ** (i & 31);
    });
  }

  /**
   * ORs into target the state after reading cp from `state` (a new copy may start too).
   * Returns FULL_COPY when a whole copy ends here, LIVE when a partial copy goes on, else 0.
   */
  advance(state: Uint32Array, cp: number, target: Uint32Array): number {
    const mask = this.masks.get(cp);
    if (!mask) return 0;
    let carry = 1;
    let last = 0;
    let any = 0;
    for (let w = 0; w < this.words; w++) {
      const bits = state[w];
      const next = (((bits << 1) | carry) & mask[w]) >>> 0;
      target[w] |= next;
      any |= next;
      if (w === this.lastWord) last = next;
      carry = bits >>> 31;
    }
    return ((last & this.lastBit) !== 0 ? FULL_COPY : 0) | (any !== 0 ? LIVE : 0);
  }
}

const FULL_COPY = 1;
const LIVE = 2;

/** The secret's first character, written for a regex character class. */
const secretFirst = (secret: number[]) => `\\u{${secret[0].toString(16)}}`;

/** Index after each copy of the secret (as code points), in increasing order. */
export async function copyEnds(reader: EscapeReader, secret: number[], budget: SearchBudget): Promise<number[]> {
  const text = reader.text;
  const masks = new BitMasks(secret);
  const ahead = new Map<number, Uint32Array>(); // states reached past the next character, by index
  let state: Uint32Array = new Uint32Array(masks.words);
  let next: Uint32Array = new Uint32Array(masks.words);
  const ends: number[] = [];
  // Where a copy could begin: its first character as written, or any escape.
  const start = new RegExp(`[${secretFirst(secret)}%\\\\&${reader.plusIsSpace ? '+' : ''}]`, 'gu');
  let live = false; // some partial copy reaches the next index
  let sinceCheck = 0;
  for (let pos = 0; pos < text.length; ) {
    if (!live && ahead.size === 0) {
      start.lastIndex = pos;
      const found = start.exec(text);
      if (!found) break;
      pos = found.index;
    }
    const arrived = ahead.get(pos);
    if (arrived) {
      for (let w = 0; w < masks.words; w++) state[w] |= arrived[w];
      ahead.delete(pos);
    }
    const cp = text.codePointAt(pos) as number;
    const width = cp > 0xffff ? 2 : 1;
    next.fill(0);
    live = false;
    if (!reader.startsEscape(cp)) {
      const result = masks.advance(state, cp, next);
      if (result & FULL_COPY) ends.push(pos + width);
      live = (result & LIVE) !== 0;
    } else {
      for (const reading of reader.read(pos, MAX_ESCAPE_DEPTH)) {
        let target = next;
        if (reading.end !== pos + width) {
          target = ahead.get(reading.end) ?? new Uint32Array(masks.words);
          ahead.set(reading.end, target);
        }
        const result = masks.advance(state, reading.cp, target);
        if (result & FULL_COPY) ends.push(reading.end);
        if (target === next && result & LIVE) live = true;
      }
    }
    const reached = next;
    next = state;
    state = reached;
    pos += width;
    if (++sinceCheck === POSITIONS_PER_CHECK) {
      sinceCheck = 0;
      await checkBudget(budget);
    }
  }
  // Ends reached through an escape may come before nearer ones; sort and drop repeats.
  ends.sort((a, b) => a - b);
  return ends.filter((end, i) => i === 0 || end !== ends[i - 1]);
}

/** The end of the longest copy of the secret that starts at `start`, or -1 when none does. */
export function longestCopyFrom(reader: EscapeReader, secret: number[], start: number): number {
  let positions = [start];
  for (const cp of secret) {
    const next: number[] = [];
    for (const pos of positions) {
      for (const reading of reader.read(pos, MAX_ESCAPE_DEPTH)) {
        if (reading.cp === cp && !next.includes(reading.end)) next.push(reading.end);
      }
    }
    if (next.length === 0) return -1;
    positions = next;
  }
  return Math.max(...positions);
}

export const isLowSurrogateOfPair = (text: string, pos: number) => pos > 0 && /[\uDC00-\uDFFF]/.test(text[pos]) && /[\uD800-\uDBFF]/.test(text[pos - 1]);

/** Where a copy sits in a text: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/**
 * The copies redactSecret replaces: the leftmost copy, the longest one starting there, then the next copy
 * after it. A copy starting at s ends after s and at most LONGEST_COPY_PER_CHAR per character later, so the
 * copies that end first start in a window before that end; each index is tried as a start at most once.
 */
export async function copySpans(reader: EscapeReader, secret: number[], budget: SearchBudget): Promise<Span[]> {
  const text = reader.text;
  const ends = await copyEnds(reader, secret, budget);
  const longestCopy = secret.length * LONGEST_COPY_PER_CHAR;
  const spans: Span[] = [];
  let from = 0; // indexes before this one were tried as starts
  let tried = 0;
  for (const end of ends) {
    if (end <= from) continue;
    let found = false;
    for (let start = Math.max(from, end - longestCopy); start < end && !found; start++) {
      if (++tried % 4096 === 0) await checkBudget(budget);
      const cp = text.codePointAt(start) as number;
      if ((cp !== secret[0] && !reader.startsEscape(cp)) || isLowSurrogateOfPair(text, start)) continue;
      const copyEnd = longestCopyFrom(reader, secret, start);
      if (copyEnd < 0) continue;
      spans.push({ start, end: copyEnd });
      found = true;
    }
    // After a copy, look again from its end (this end may belong to a copy that starts after it).
    from = found ? spans[spans.length - 1].end : end;
  }
  return spans;
}

/** The text with each span, before `stop`, replaced. */
export function replaceSpans(text: string, spans: readonly Span[], stop: number, replacement: string): string {
  let out = '';
  let done = 0;
  for (const span of spans) {
    if (span.start >= stop) break;
    out += text.slice(done, span.start) + replacement;
    done = span.end;
  }
  return out + text.slice(done, stop);
}

/**
 * Replaces every copy of `secret` in `text` by `replacement` (${CLIENT_SECRET} unless the caller names its
 * own token): the leftmost copy first, the longest one starting there, then the next copy after it. Throws
 * SearchTimeout when the budget runs out.
 */
export async function redactSecret(text: string, secret: string, budget: SearchBudget, replacement = REDACTED): Promise<string> {
  if (!secret || !text) return text;
  const codePoints = [...secret].map((ch) => ch.codePointAt(0) as number);
  const plusIsSpace = codePoints.includes(0x20);
  if (!(plusIsSpace ? /[%\\&+]/ : /[%\\&]/).test(text)) return text.split(secret).join(replacement);
  const reader = new EscapeReader(text, { plusIsSpace });
  return replaceSpans(text, await copySpans(reader, codePoints, budget), text.length, replacement);
}
