import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecret, SearchTimeout } from './redact';
import { maxHeldLength, StreamRedactor } from './stream-redactor';

const budget = { deadline: Number.MAX_SAFE_INTEGER, now: () => 0 };

/** What push returns for each piece, then what end returns. */
async function stream(secret: string, pieces: readonly string[], replacement?: string): Promise<string[]> {
  const redactor = new StreamRedactor(secret, budget, replacement);
  const out: string[] = [];
  for (const piece of pieces) out.push(await redactor.push(piece));
  out.push(await redactor.end());
  return out;
}

const hex2 = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
const eachChar = (text: string, escape: (ch: string) => string) => [...text].map(escape).join('');
const percent = (text: string) => [...new TextEncoder().encode(text)].map((byte) => `%${hex2(byte)}`).join('');
const formEncode = (text: string) => new URLSearchParams({ k: text }).toString().slice(2);
const jsonU = (text: string) => Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
const htmlHex = (text: string) => eachChar(text, (ch) => `&#x${(ch.codePointAt(0) as number).toString(16)};`);
const NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '"': '&quot;', '/': '&sol;', '%': '&percnt;' };
/** Each character as an HTML reference: named where a name exists, else decimal. */
const htmlNamed = (text: string) => eachChar(text, (ch) => NAMED[ch] ?? `&#${ch.codePointAt(0)};`);

/** The secret as written and in each escaped form the search recognises, named. */
function forms(secret: string): [string, string][] {
  return [
    ['as written', secret],
    ['percent-encoded', percent(secret)],
    ['form-encoded', formEncode(secret)],
    ['JSON \\u escapes', jsonU(secret)],
    ['HTML &#x..;', htmlHex(secret)],
    ['HTML named and decimal references', htmlNamed(secret)],
    ['percent-encoded twice', percent(percent(secret))],
    ['named references over percent', percent(secret).replace(/%/g, '&percnt;')],
    ['HTML &#x..; of percent', htmlHex(percent(secret))],
    ['JSON over HTML references', htmlNamed(secret).replace(/&/g, '\\u0026')],
    ['percent-encoded three times', percent(percent(percent(secret)))],
  ];
}

// A secret with a space (form encoding writes '+'), characters with named references, an astral character,
// and one whose end can begin another copy.
const SECRETS = ['sk-live-123', 'my key&1', 'a"b/c<é😀', 'x%x'];

describe('stream redaction', () => {
  it('escaped forms used by these tests are copies redactSecret finds', async () => {
    for (const secret of SECRETS) {
      for (const [name, form] of forms(secret)) {
        expect(await redactSecret(`<${form}>`, secret, budget), `${secret} ${name}`).toBe(`<${REDACTED}>`);
      }
    }
  });

  it('rule 1: a copy split at any point, in any escaped form, is never passed on', async () => {
    for (const secret of SECRETS) {
      for (const [name, form] of forms(secret)) {
        for (let k = 0; k <= form.length; k++) {
          const out = await stream(secret, [`before ${form.slice(0, k)}`, `${form.slice(k)} after`]);
          expect(out.join(''), `${name} split at ${k}`).toBe(`before ${REDACTED} after`);
        }
      }
    }
  });

  it('rule 1: for any split of any text, the pieces passed on add up to redactSecret of the whole text', async () => {
    const filler = fc.string({ unit: fc.constantFrom(...('sk-l1 2&amp;#x%25\\u{}+e"/<é😀'.match(/./gsu) as string[])), maxLength: 8 });
    const part = fc.oneof(filler, fc.integer({ min: 0, max: forms('').length - 1 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SECRETS), fc.array(part, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), async (secret, parts, cuts) => {
        const text = parts.map((p) => (typeof p === 'string' ? p : forms(secret)[p][1])).join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const pieces = [0, ...points].map((from, i) => text.slice(from, [...points, text.length][i]));
        const out = await stream(secret, pieces, '[gone]');
        expect(out.join('')).toBe(await redactSecret(text, secret, budget, '[gone]'));
      }),
      { numRuns: 600, seed: 20_260_512 },
    );
  });

  it('rule 1: a copy is replaced whole even when a possible copy starts inside it', async () => {
    const redactor = new StreamRedactor('aXa', budget);
    expect(await redactor.push('aXaX')).toBe(`${REDACTED}X`);
    expect(await redactor.push('a')).toBe('');
    expect(await redactor.end()).toBe('a');
  });

  it('rule 2: a piece ending in ordinary text is passed on whole; only a possible copy start is held back', async () => {
    const redactor = new StreamRedactor('sk-live-123', budget);
    expect(await redactor.push('hello world')).toBe('hello world');
    expect(await redactor.push('abc s')).toBe('abc ');
    expect(await redactor.push('k-x')).toBe('sk-x');
    expect(await redactor.push('x sk-li')).toBe('x ');
    expect(await redactor.push('v')).toBe('');
    expect(await redactor.push('E')).toBe('sk-livE');
    expect(await redactor.push('50% off, a&b, \\n, %41!')).toBe('50% off, a&b, \\n, %41!');
    expect(await redactor.push('then %73k-li')).toBe('then ');
    expect(await redactor.end()).toBe('%73k-li');
  });

  it('rule 2: an unfinished escape at the end is held back until the next piece decides it', async () => {
    for (const tail of ['%', '%7', '%25', '&am', '&#x7', '&#11', '\\', '\\u00', '\\u{7', '&amp;#x7', '%2525']) {
      const redactor = new StreamRedactor('sk-live-123', budget);
      expect(await redactor.push(`x ${tail}`), tail).toBe('x ');
      expect(await redactor.push(' y'), tail).toBe(`${tail} y`);
    }
  });

  it('rule 2: the hold-back never exceeds maxHeldLength, even for the longest partial copy', async () => {
    const secret = 'ab';
    // Each character escaped three layers deep as a 12-character reference (&#x00000061;): 1,728 characters.
    const longest = (ch: string) => `&#x${(ch.codePointAt(0) as number).toString(16).padStart(8, '0')};`;
    const deepA = eachChar(eachChar(longest('a'), longest), longest);
    const deepB = eachChar(eachChar(longest('b'), longest), longest);
    expect(await redactSecret(`${deepA}${deepB}`, secret, budget)).toBe(REDACTED);
    const redactor = new StreamRedactor(secret, budget);
    expect(await redactor.push(`z ${deepA}`)).toBe('z ');
    expect(await redactor.push(deepB.slice(0, 1700))).toBe('');
    expect(deepA.length + 1700).toBeLessThanOrEqual(maxHeldLength(secret));
    expect(await redactor.push(`${deepB.slice(1700)}!`)).toBe(`${REDACTED}!`);

    let pushed = 0;
    let passed = 0;
    const hostile = new StreamRedactor(secret, budget);
    const piece = `${deepA.slice(0, 700)}&a%2&#x6\\u00`;
    for (let i = 0; i < 200; i++) {
      pushed += piece.length;
      passed += (await hostile.push(piece)).length;
      expect(pushed - passed).toBeLessThanOrEqual(maxHeldLength(secret));
    }
  });

  it('rule 3: 10 MB in 4 KB pieces without the secret, and 10 MB full of % and &, stream through', { timeout: 180_000 }, async () => {
    const piece = 'lorem ipsum sk-live dolor sit amet, sk-l '.repeat(100).slice(0, 4096);
    const plain = new StreamRedactor('sk-live-123', budget);
    let passed = 0;
    for (let i = 0; i < 2560; i++) passed += (await plain.push(piece)).length;
    passed += (await plain.end()).length;
    expect(passed).toBe(2560 * 4096);

    const noisy = '100% & 50%&%&&amp;%25 \\u00&#x%4'.repeat(200).slice(0, 4096);
    const escapes = new StreamRedactor('sk-live-123', budget);
    const out: string[] = [];
    for (let i = 0; i < 2560; i++) out.push(await escapes.push(noisy));
    out.push(await escapes.end());
    expect(out.join('')).toBe(noisy.repeat(2560));
  });

  it('rule 4: with an empty secret every piece passes through unchanged', async () => {
    expect(await stream('', ['a %', '4&am', 'p; sk', ''])).toEqual(['a %', '4&am', 'p; sk', '', '']);
  });

  it('a surrogate pair split between pieces is held back, never passed on in halves', async () => {
    const redactor = new StreamRedactor('sk-live-123', budget);
    expect(await redactor.push('x \uD83D')).toBe('x ');
    expect(await redactor.push('\uDE00 y')).toBe('😀 y');
  });

  it('fails with SearchTimeout when the budget runs out', async () => {
    const late = { deadline: 1_000, now: () => 1_001 };
    await expect(new StreamRedactor('secret', late).push('%41'.repeat(100_000))).rejects.toBeInstanceOf(SearchTimeout);
  });
});
