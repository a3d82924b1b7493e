/**
 * Reads one character of text that may be wrapped in layers of escaping: percent-encoding (%HH, UTF-8 bytes
 * for non-ASCII; with plusIsSpace also '+' for a space, as application/x-www-form-urlencoded and
 * URLSearchParams write it), backslash escapes (\xHH, \uXXXX with surrogate pairs, \u{X..}, \UXXXXXXXX,
 * \n \r \t \b \f \v \0 \" \' \\ \/) and HTML character references (&#NN;, &#xHH;, &name;). Each character of
 * an escape is itself read with one layer less, so layers mix freely per character, as they do when a value
 * passes through several encoders. Hex digits are read in either case.
 */
import { HTML_NAMED_REFERENCES, LONGEST_HTML_NAME } from './html-names';

/** One way to read a character: its code point and the index just after what was read. */
export interface Reading {
  cp: number;
  end: number;
}

export const PERCENT = 0x25;
const PLUS = 0x2b;
const SPACE = 0x20;
export const BACKSLASH = 0x5c;
export const AMPERSAND = 0x26;
export const HASH = 0x23;
export const SEMICOLON = 0x3b;
const MAX_CODE_POINT = 0x10ffff;

/**
 * Every escape of more than one character begins with one of these as written, whatever its depth. Escape
 * syntax is read through these alone: '+' (a space in form encoding) never reads as a character of one.
 */
export const isEscapeStart = (cp: number): boolean => cp === PERCENT || cp === BACKSLASH || cp === AMPERSAND;

export interface EscapeReaderOptions {
  /**
   * Read '+' as a space too, one layer like %20 (form encoding). Only worth it when the secret holds a space:
   * a space is never part of escape syntax, so otherwise the reading can match nothing.
   */
  plusIsSpace?: boolean;
}

const SHORT_ESCAPES: ReadonlyMap<number, number> = new Map([
  [0x6e, 0x0a], // \n
  [0x72, 0x0d], // \r
  [0x74, 0x09], // \t
  [0x62, 0x08], // \b
  [0x66, 0x0c], // \f
  [0x76, 0x0b], // \v
  [0x30, 0x00], // \0
  [0x22, 0x22], // \"
  [0x27, 0x27], // \'
  [0x5c, 0x5c], // \\
  [0x2f, 0x2f], // \/
]);

export function digitValue(cp: number, base: number): number {
  let value = -1;
  if (cp >= 0x30 && cp <= 0x39) value = cp - 0x30;
  else if (cp >= 0x61 && cp <= 0x66) value = cp - 0x61 + 10;
  else if (cp >= 0x41 && cp <= 0x46) value = cp - 0x41 + 10;
  return value < base ? value : -1;
}

export const isAsciiAlnum = (cp: number) => (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);

interface State {
  pos: number;
  value: number;
}

function addReading(list: Reading[], cp: number, end: number): void {
  if (cp < 0 || cp > MAX_CODE_POINT) return;
  if (!list.some((r) => r.cp === cp && r.end === end)) list.push({ cp, end });
}

function addState(list: State[], pos: number, value: number): void {
  if (!list.some((s) => s.pos === pos && s.value === value)) list.push({ pos, value });
}

// What may follow the first character of each escape (as written, or any escape one layer down).
export const mayFollowPercent = (cp: number) => digitValue(cp, 16) >= 0;
export const mayFollowBackslash = (cp: number) => cp === 0x78 || cp === 0x75 || cp === 0x55 || SHORT_ESCAPES.has(cp);
export const mayFollowAmpersand = (cp: number) => cp === HASH || isAsciiAlnum(cp);

/**
 * Readings are remembered in a ring indexed by position: a reading at depth 3 looks at most 18^3 characters
 * ahead (18 is the longest escape, &DiacriticalGrave;), so a ring larger than that keeps what a forward walk
 * needs; a slot that was reused is simply read again. Memory stays bounded on any text.
 */
const RING = 1 << 14;
const RING_MASK = RING - 1;

export class EscapeReader {
  private readonly remembered: (Reading[] | undefined)[] = new Array(RING * 4);
  private readonly rememberedAt = new Int32Array(RING * 4).fill(-1);

  readonly plusIsSpace: boolean;

  constructor(
    readonly text: string,
    options: EscapeReaderOptions = {},
  ) {
    this.plusIsSpace = options.plusIsSpace ?? false;
  }

  /** True when the character as written may be read as another one: an escape starts here. */
  startsEscape(cp: number): boolean {
    return isEscapeStart(cp) || (this.plusIsSpace && cp === PLUS);
  }

  /** The character at pos as written (a whole surrogate pair), or undefined at the end. */
  raw(pos: number): Reading | undefined {
    if (pos >= this.text.length) return undefined;
    const cp = this.text.codePointAt(pos) as number;
    return { cp, end: pos + (cp > 0xffff ? 2 : 1) };
  }

  /** Every way to read one character at pos with up to `depth` layers of escaping around it. */
  read(pos: number, depth: number): Reading[] {
    const raw = this.raw(pos);
    if (!raw) return [];
    if (depth === 0 || !this.startsEscape(raw.cp)) return [raw];
    const slot = (pos & RING_MASK) * 4 + depth;
    if (this.rememberedAt[slot] === pos) return this.remembered[slot] as Reading[];
    const readings = this.decode(pos, depth);
    this.remembered[slot] = readings;
    this.rememberedAt[slot] = pos;
    return readings;
  }

  private decode(pos: number, depth: number): Reading[] {
    const inner = depth - 1;
    const starts = this.read(pos, inner);
    const out: Reading[] = [...starts];
    for (const start of starts) {
      if (start.cp === PERCENT) {
        if (this.mayFollow(start.end, inner, mayFollowPercent)) this.percent(start.end, inner, out);
      } else if (start.cp === BACKSLASH) {
        if (this.mayFollow(start.end, inner, mayFollowBackslash)) this.backslash(start.end, inner, out);
      } else if (start.cp === AMPERSAND) {
        if (this.mayFollow(start.end, inner, mayFollowAmpersand)) this.reference(start.end, inner, out);
      } else if (start.cp === PLUS && this.plusIsSpace) {
        addReading(out, SPACE, start.end);
      }
    }
    return out;
  }

  /** Cheap test before decoding an escape: the next character as written fits it, or may itself be escaped. */
  private mayFollow(pos: number, depth: number, fits: (cp: number) => boolean): boolean {
    const cp = this.text.codePointAt(pos);
    return cp !== undefined && (fits(cp) || (depth > 0 && isEscapeStart(cp)));
  }

  /** Reads one character from each state; `fold` accepts it into the state's value or refuses it (undefined). */
  private step(states: State[], depth: number, fold: (cp: number, value: number) => number | undefined): State[] {
    const next: State[] = [];
    for (const state of states) {
      const cp = this.text.codePointAt(state.pos);
      if (cp === undefined) continue;
      if (depth === 0 || !isEscapeStart(cp)) {
        // As written: no allocation for the common case.
        const value = fold(cp, state.value);
        if (value !== undefined) addState(next, state.pos + (cp > 0xffff ? 2 : 1), value);
        continue;
      }
      for (const reading of this.read(state.pos, depth)) {
        const value = fold(reading.cp, state.value);
        if (value !== undefined) addState(next, reading.end, value);
      }
    }
    return next;
  }

  private expect(states: State[], depth: number, cp: number): State[] {
    return this.step(states, depth, (read, value) => (read === cp ? value : undefined));
  }

  /** The states after min..max digits of `base`, each digit folded into the value. */
  private digits(states: State[], depth: number, base: number, min: number, max: number): State[] {
    const all: State[] = [];
    let current = states;
    for (let count = 1; count <= max && current.length > 0; count++) {
      current = this.step(current, depth, (cp, value) => {
        const digit = digitValue(cp, base);
        return digit < 0 ? undefined : value * base + digit;
      });
      if (count >= min) all.push(...current);
    }
    return all;
  }

  /** After '%': one byte, or the UTF-8 bytes of one non-ASCII character. */
  private percent(pos: number, depth: number, out: Reading[]): void {
    for (const lead of this.digits([{ pos, value: 0 }], depth, 16, 2, 2)) {
      const byte = lead.value;
      if (byte < 0x80) {
        addReading(out, byte, lead.pos);
        continue;
      }
      const more = byte >= 0xc2 && byte <= 0xdf ? 1 : byte >= 0xe0 && byte <= 0xef ? 2 : byte >= 0xf0 && byte <= 0xf4 ? 3 : 0;
      if (more === 0) continue;
      let states: State[] = [{ pos: lead.pos, value: byte & (0x3f >> more) }];
      for (let i = 0; i < more && states.length > 0; i++) {
        const withByte = this.digits(this.expect(states, depth, PERCENT), depth, 16, 2, 2);
        states = [];
        for (const s of withByte) {
          const continuation = s.value % 256;
          if (continuation >= 0x80 && continuation <= 0xbf) addState(states, s.pos, Math.floor(s.value / 256) * 64 + (continuation & 0x3f));
        }
      }
      const smallest = more === 1 ? 0x80 : more === 2 ? 0x800 : 0x10000;
      for (const s of states) {
        if (s.value >= smallest && !(s.value >= 0xd800 && s.value <= 0xdfff)) addReading(out, s.value, s.pos);
      }
    }
  }

  /** After '\': \xHH, \uXXXX (and a following low surrogate), \u{X..}, \UXXXXXXXX, or a short escape. */
  private backslash(pos: number, depth: number, out: Reading[]): void {
    for (const kind of this.read(pos, depth)) {
      const at: State[] = [{ pos: kind.end, value: 0 }];
      if (kind.cp === 0x78) {
        for (const s of this.digits(at, depth, 16, 2, 2)) addReading(out, s.value, s.pos);
      } else if (kind.cp === 0x75) {
        for (const s of this.expect(this.digits(this.expect(at, depth, 0x7b), depth, 16, 1, 8), depth, 0x7d)) {
          addReading(out, s.value, s.pos);
        }
        for (const unit of this.digits(at, depth, 16, 4, 4)) {
          addReading(out, unit.value, unit.pos);
          if (unit.value < 0xd800 || unit.value > 0xdbff) continue;
          const low = this.digits(this.expect(this.expect([unit], depth, BACKSLASH), depth, 0x75), depth, 16, 4, 4);
          for (const s of low) {
            const lowUnit = s.value % 0x10000;
            if (lowUnit >= 0xdc00 && lowUnit <= 0xdfff) addReading(out, 0x10000 + (unit.value - 0xd800) * 0x400 + (lowUnit - 0xdc00), s.pos);
          }
        }
      } else if (kind.cp === 0x55) {
        for (const s of this.digits(at, depth, 16, 8, 8)) addReading(out, s.value, s.pos);
      } else {
        const short = SHORT_ESCAPES.get(kind.cp);
        if (short !== undefined) addReading(out, short, kind.end);
      }
    }
  }

  /** After '&': &#NN;, &#xHH; (x or X), or a named reference from HTML_NAMED_REFERENCES. */
  private reference(pos: number, depth: number, out: Reading[]): void {
    for (const first of this.read(pos, depth)) {
      if (first.cp === HASH) {
        const at: State[] = [{ pos: first.end, value: 0 }];
        for (const s of this.expect(this.digits(at, depth, 10, 1, 8), depth, SEMICOLON)) addReading(out, s.value, s.pos);
        const hex = this.step(at, depth, (cp, value) => (cp === 0x78 || cp === 0x58 ? value : undefined));
        for (const s of this.expect(this.digits(hex, depth, 16, 1, 8), depth, SEMICOLON)) addReading(out, s.value, s.pos);
      } else if (isAsciiAlnum(first.cp)) {
        this.named(first, depth, out);
      }
    }
  }

  private named(first: Reading, depth: number, out: Reading[]): void {
    let names: { pos: number; name: string }[] = [{ pos: first.end, name: String.fromCharCode(first.cp) }];
    for (let length = 1; length <= LONGEST_HTML_NAME && names.length > 0; length++) {
      const longer: { pos: number; name: string }[] = [];
      for (const { pos, name } of names) {
        for (const next of this.read(pos, depth)) {
          if (next.cp === SEMICOLON) {
            const cp = HTML_NAMED_REFERENCES.get(name);
            if (cp !== undefined) addReading(out, cp, next.end);
          } else if (isAsciiAlnum(next.cp) && length < LONGEST_HTML_NAME) {
            const grown = name + String.fromCharCode(next.cp);
            if (!longer.some((l) => l.pos === next.end && l.name === grown)) longer.push({ pos: next.end, name: grown });
          }
        }
      }
      names = longer;
    }
  }
}
