/**
 * Tells whether the end of a text cuts an escape short: whether a character read at an index (escape-reader.ts,
 * up to `depth` layers) could end past the end of the text once more text arrives, as '%4', '&am', '&#x4',
 * '\' or '\u00' at the end can. It walks the grammar of EscapeReader step by step, reads the finished
 * characters of each escape with the reader itself, and answers yes as soon as a step needs a character past
 * the end. It does not ask which character the escape would become, so it may say yes for an escape that could
 * never turn into a character of the secret; it never says no for one that could grow.
 */
import {
  AMPERSAND,
  BACKSLASH,
  digitStates,
  type EscapeReader,
  HASH,
  isAsciiAlnum,
  isEscapeStart,
  mayFollowAmpersand,
  mayFollowBackslash,
  mayFollowPercent,
  PERCENT,
  type Reading,
  SEMICOLON,
  type State,
} from './escape-reader';
import { HTML_NAMED_REFERENCES } from './html-names';

/** Every prefix of a known reference name: a name that is no such prefix can never end in a reference. */
const NAME_PREFIXES: ReadonlySet<string> = new Set([...HTML_NAMED_REFERENCES.keys()].flatMap((name) => [...name].map((_, i) => name.slice(0, i + 1))));

/** Thrown inside the walk of one escape when a step needs a character past the end. */
const CUT_SHORT = Symbol('cut short');

/** How many continuation bytes a UTF-8 lead byte announces (0 for ASCII and invalid leads). */
const continuationBytes = (lead: number) => (lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0);

export class UnfinishedEscapes {
  private readonly end: number;
  private readonly known = new Map<number, boolean>();

  constructor(private readonly reader: EscapeReader) {
    this.end = reader.text.length;
  }

  /** True when a character read at pos with up to `depth` layers could end past the end of the text. */
  cutShort(pos: number, depth: number): boolean {
    if (pos >= this.end) return true;
    const cp = this.reader.text.codePointAt(pos) as number;
    if (depth === 0 || !this.reader.startsEscape(cp)) return false;
    const key = pos * 4 + depth;
    let cut = this.known.get(key);
    if (cut === undefined) {
      cut = this.escapeCutShort(pos, depth);
      this.known.set(key, cut);
    }
    return cut;
  }

  private escapeCutShort(pos: number, depth: number): boolean {
    const inner = depth - 1;
    if (this.cutShort(pos, inner)) return true;
    try {
      for (const start of this.reader.read(pos, inner)) {
        if (start.cp === PERCENT) {
          if (this.mayFollow(start.end, inner, mayFollowPercent)) this.percent(start.end, inner);
        } else if (start.cp === BACKSLASH) {
          if (this.mayFollow(start.end, inner, mayFollowBackslash)) this.backslash(start.end, inner);
        } else if (start.cp === AMPERSAND) {
          if (this.mayFollow(start.end, inner, mayFollowAmpersand)) this.reference(start.end, inner);
        }
      }
      return false;
    } catch (thrown) {
      if (thrown === CUT_SHORT) return true;
      throw thrown;
    }
  }

  /** EscapeReader's cheap test, where the end of the text lets anything follow. */
  private mayFollow(pos: number, depth: number, fits: (cp: number) => boolean): boolean {
    const cp = this.reader.text.codePointAt(pos);
    return cp === undefined || fits(cp) || (depth > 0 && isEscapeStart(cp));
  }

  /** The finished readings of one character at pos; throws CUT_SHORT when it could still grow past the end. */
  private readChar(pos: number, depth: number): Reading[] {
    if (this.cutShort(pos, depth)) throw CUT_SHORT;
    return this.reader.read(pos, depth);
  }

  private step(states: State[], depth: number, fold: (cp: number, value: number) => number | undefined): State[] {
    const next: State[] = [];
    for (const state of states) {
      for (const reading of this.readChar(state.pos, depth)) {
        const value = fold(reading.cp, state.value);
        if (value !== undefined && !next.some((s) => s.pos === reading.end && s.value === value)) next.push({ pos: reading.end, value });
      }
    }
    return next;
  }

  private expect(states: State[], depth: number, cp: number): State[] {
    return this.step(states, depth, (read, value) => (read === cp ? value : undefined));
  }

  private digits(states: State[], depth: number, base: number, min: number, max: number): State[] {
    return digitStates((from, fold) => this.step(from, depth, fold), states, base, min, max);
  }

  private percent(pos: number, depth: number): void {
    for (const lead of this.digits([{ pos, value: 0 }], depth, 16, 2, 2)) {
      let states: State[] = [{ pos: lead.pos, value: 0 }];
      for (let i = 0; i < continuationBytes(lead.value) && states.length > 0; i++) {
        states = this.digits(this.expect(states, depth, PERCENT), depth, 16, 2, 2)
          .filter((s) => s.value >= 0x80 && s.value <= 0xbf)
          .map((s) => ({ pos: s.pos, value: 0 }));
      }
    }
  }

  private backslash(pos: number, depth: number): void {
    for (const kind of this.readChar(pos, depth)) {
      const at: State[] = [{ pos: kind.end, value: 0 }];
      if (kind.cp === 0x78) {
        this.digits(at, depth, 16, 2, 2);
      } else if (kind.cp === 0x75) {
        this.expect(this.digits(this.expect(at, depth, 0x7b), depth, 16, 1, 8), depth, 0x7d);
        for (const unit of this.digits(at, depth, 16, 4, 4)) {
          if (unit.value >= 0xd800 && unit.value <= 0xdbff) {
            this.digits(this.expect(this.expect([unit], depth, BACKSLASH), depth, 0x75), depth, 16, 4, 4);
          }
        }
      } else if (kind.cp === 0x55) {
        this.digits(at, depth, 16, 8, 8);
      }
    }
  }

  private reference(pos: number, depth: number): void {
    for (const first of this.readChar(pos, depth)) {
      if (first.cp === HASH) {
        const at: State[] = [{ pos: first.end, value: 0 }];
        this.expect(this.digits(at, depth, 10, 1, 8), depth, SEMICOLON);
        const hex = this.step(at, depth, (cp, value) => (cp === 0x78 || cp === 0x58 ? value : undefined));
        this.expect(this.digits(hex, depth, 16, 1, 8), depth, SEMICOLON);
      } else if (isAsciiAlnum(first.cp)) {
        this.named(first, depth);
      }
    }
  }

  private named(first: Reading, depth: number): void {
    let names = [{ pos: first.end, name: String.fromCharCode(first.cp) }];
    while (names.length > 0) {
      const longer: { pos: number; name: string }[] = [];
      for (const { pos, name } of names) {
        if (!NAME_PREFIXES.has(name)) continue;
        for (const next of this.readChar(pos, depth)) {
          if (isAsciiAlnum(next.cp)) longer.push({ pos: next.end, name: name + String.fromCharCode(next.cp) });
        }
      }
      names = longer;
    }
  }
}
