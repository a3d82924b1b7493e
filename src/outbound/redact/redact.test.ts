import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HTML_NAMED_REFERENCES } from './html-names';
import { REDACTED, redactSecret, SearchTimeout } from './redact';

const budget = { deadline: Number.MAX_SAFE_INTEGER, now: () => 0 };
const redact = (text: string, secret: string) => redactSecret(text, secret, budget);

type Scheme = 'percent' | 'backslash' | 'html' | 'form';
type Pick = <T>(options: readonly T[]) => T;

const hex = (n: number, width: number, upper: boolean) => {
  const digits = n.toString(16).padStart(width, '0');
  return upper ? digits.toUpperCase() : digits;
};
const NAMES = new Map<number, string[]>();
for (const [name, cp] of HTML_NAMED_REFERENCES) NAMES.set(cp, [...(NAMES.get(cp) ?? []), name]);
const SHORT: Record<string, string> = { '\n': 'n', '\r': 'r', '\t': 't', '"': '"', "'": "'", '\\': '\\', '/': '/' };

/** A value as URLSearchParams (application/x-www-form-urlencoded) writes it: space as '+', UTF-8 %HH. */
const formEncode = (text: string) => new URLSearchParams({ k: text }).toString().slice(2);
/** True when form encoding writes the character differently (it keeps ASCII letters, digits and *-._). */
const formChanges = (ch: string) => formEncode(ch) !== ch;

/** One character escaped once with `scheme`, the variant picked at random (hex case, form, name). */
function escapeChar(ch: string, scheme: Scheme, pick: Pick, numericOnly: boolean): string {
  const cp = ch.codePointAt(0) as number;
  if (scheme === 'form') {
    // Form encoding as URLSearchParams writes it, hex digits in either case.
    return formEncode(ch).replace(/%[0-9A-F]{2}/g, (escape) => (pick([true, false]) ? escape : escape.toLowerCase()));
  }
  if (scheme === 'percent') {
    return [...new TextEncoder().encode(ch)].map((byte) => `%${hex(byte, 2, pick([true, false]))}`).join('');
  }
  if (scheme === 'backslash') {
    const units = ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [cp];
    const forms = [units.map((u) => `\\u${hex(u, 4, pick([true, false]))}`).join(''), `\\u{${hex(cp, 1, pick([true, false]))}}`];
    if (cp <= 0xff) forms.push(`\\x${hex(cp, 2, pick([true, false]))}`);
    if (!numericOnly && SHORT[ch]) forms.push(`\\${SHORT[ch]}`);
    return pick(forms);
  }
  const forms = [`&#${cp};`, `&#${pick(['x', 'X'])}${hex(cp, 1, pick([true, false]))};`];
  if (!numericOnly) forms.push(...(NAMES.get(cp) ?? []).map((name) => `&${name};`));
  return pick(forms);
}

/**
 * One layer of escaping; `every` escapes each character (form encoding only where it changes the character),
 * otherwise each is left as written or not at random.
 */
function escapeLayer(text: string, pick: Pick, every: boolean): string {
  return [...text]
    .map((ch) => {
      const schemes: (Scheme | 'raw')[] = every ? ['percent', 'backslash', 'html'] : ['raw', 'percent', 'backslash', 'html', 'form'];
      if (every && formChanges(ch)) schemes.push('form');
      const scheme = pick(schemes);
      return scheme === 'raw' ? ch : escapeChar(ch, scheme, pick, every);
    })
    .join('');
}

const anyChar = fc.constantFrom(...'aZ09fx;#%&+\\{}"\'/<> \néß€😀'.match(/./gsu)!);
// What the service form-encodes (data and params): space, '+', '&', '=', '%', what URLSearchParams encodes and
// encodeURIComponent keeps (!'()~), what both keep (*-._), escape syntax and non-ASCII.
const formChar = fc.constantFrom(...'aZ09fx +&=%;#\\"\'()!~*-._éß€😀'.match(/./gsu)!);
const formNoise = fc.string({ unit: fc.constantFrom('|', '^', '`'), maxLength: 6 });
// Characters that never occur in the numeric escape syntax (%, hex digits, \, x, u, {, }, &, #, ;), so a
// copy escaped four times cannot hold a shallower copy of the secret in its escape syntax.
const syntaxFreeChar = fc.constantFrom(...'ghijklmnopqrstvwyzGHIJKLMNOPQRSTVWYZ!-_.,:@()~* éß€😀'.match(/./gsu)!);
const noise = fc.string({ unit: fc.constantFrom('|', '^', '`', '='), maxLength: 6 });
const pickerFrom =
  (g: fc.GeneratorValue): Pick =>
  (options) =>
    options[g(fc.integer, { min: 0, max: options.length - 1 })];

describe('secret redaction', () => {
  it('replaces every copy written as it is and leaves the rest byte for byte', async () => {
    expect(await redact('key=s3cr3t; again s3cr3t.', 's3cr3t')).toBe(`key=${REDACTED}; again ${REDACTED}.`);
    expect(await redact('key=s3cr3 t & 50% off', 's3cr3t')).toBe('key=s3cr3 t & 50% off');
  });

  it('finds copies escaped once with each scheme', async () => {
    const secret = 'a"b/c';
    for (const copy of ['%61%22%62%2F%63', '\\x61\\"b\\/c', '\\u0061\\u0022\\u0062\\u002f\\u0063', '&#97;&quot;b&sol;&#x63;']) {
      expect(await redact(`[${copy}]`, secret)).toBe(`[${REDACTED}]`);
    }
  });

  it('finds a copy escaped three times and leaves one escaped four times', async () => {
    const pct = (s: string) => [...new TextEncoder().encode(s)].map((b) => `%${hex(b, 2, true)}`).join('');
    const three = pct(pct(pct('key')));
    expect(await redact(`x ${three} y`, 'key')).toBe(`x ${REDACTED} y`);
    const four = pct(three);
    expect(await redact(`x ${four} y`, 'key')).toBe(`x ${four} y`);
  });

  it('finds a copy form-encoded as URLSearchParams writes data and params: space as +, UTF-8 percent-encoded', async () => {
    for (const secret of ['a b', 'sk live+1&v=50%', "(ok)!~'*-._", 'é €😀 x', ' lead', 'trail ', '+ +', '100%+&=']) {
      expect(await redact(`d=${formEncode(secret)}&e=1`, secret), secret).toBe(`d=${REDACTED}&e=1`);
      expect(await redact(`?q=${formEncode(JSON.stringify({ k: secret }))}`, secret), secret).toBe(`?q=%7B%22k%22%3A%22${REDACTED}%22%7D`);
    }
  });

  it("reads '+' as a space, one layer like %20: a form-encoded copy escaped twice more is found, three times more is not", async () => {
    const pct = (s: string) => [...new TextEncoder().encode(s)].map((b) => `%${hex(b, 2, true)}`).join('');
    const secret = 'my key';
    expect(await redact(`x ${pct(pct(formEncode(secret)))} y`, secret)).toBe(`x ${REDACTED} y`);
    const four = pct(pct(pct(formEncode(secret))));
    expect(await redact(`x ${four} y`, secret)).toBe(`x ${four} y`);
  });

  it("reads '+' as itself too: a secret holding '+' is found as written and percent-encoded, and its '+' is not a space", async () => {
    expect(await redact('a+b c', 'a+b c')).toBe(REDACTED);
    expect(await redact('a%2Bb+c', 'a+b c')).toBe(REDACTED);
    expect(await redact('a b c', 'a+b c')).toBe('a b c');
  });

  it('searches the whole text and never cuts it', async () => {
    const filler = '&%\\'.repeat(100_000);
    const text = `${filler}secret${filler}%73ecret`;
    expect(await redact(text, 'secret')).toBe(`${filler}${REDACTED}${filler}${REDACTED}`);
  });

  it('searches a whole text full of + when the secret holds a space', async () => {
    const filler = '+%&\\'.repeat(100_000);
    const text = `${filler}sec ret${filler}sec+ret`;
    expect(await redact(text, 'sec ret')).toBe(`${filler}${REDACTED}${filler}${REDACTED}`);
  });

  it('fails with SearchTimeout when the budget runs out during the search', async () => {
    const late = { deadline: 1_000, now: () => 1_001 };
    await expect(redactSecret('%41'.repeat(100_000), 'secret', late)).rejects.toBeInstanceOf(SearchTimeout);
  });

  it('property: a copy escaped 1 to 3 times with schemes mixed per character is found', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: anyChar, minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 3 }),
        noise,
        noise,
        fc.gen(),
        async (secret, layers, before, after, g) => {
          const pick = pickerFrom(g);
          let copy = secret;
          for (let i = 0; i < layers; i++) copy = escapeLayer(copy, pick, false);
          expect(await redact(before + copy + after, secret)).toBe(before + REDACTED + after);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a copy form-encoded by URLSearchParams, then escaped 0 to 2 more times, is found', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: formChar, minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 2 }),
        formNoise,
        formNoise,
        fc.gen(),
        async (secret, layers, before, after, g) => {
          const pick = pickerFrom(g);
          let copy = formEncode(secret);
          for (let i = 0; i < layers; i++) copy = escapeLayer(copy, pick, false);
          expect(await redact(before + copy + after, secret)).toBe(before + REDACTED + after);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a copy escaped fully three times is found, four times is not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: syntaxFreeChar, minLength: 1, maxLength: 6 }), noise, noise, fc.gen(), async (secret, before, after, g) => {
        const pick = pickerFrom(g);
        let copy = secret;
        for (let i = 0; i < 3; i++) copy = escapeLayer(copy, pick, true);
        expect(await redact(before + copy + after, secret)).toBe(before + REDACTED + after);
        const four = escapeLayer(copy, pick, true);
        expect(await redact(before + four + after, secret)).toBe(before + four + after);
      }),
      { numRuns: 120 },
    );
  });
});
