/** relayPieces: UTF-8 only, never a split character, packing of close pieces, what arrived kept on a failure. */
import { describe, expect, it } from 'vitest';
import { PACK_CHARS, relayPieces } from './stream-relay';

/** A body that yields each piece after `gapMs` (0: all at once), then ends or fails. */
function body(pieces: Uint8Array[], gapMs: number, failWith?: Error): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (gapMs > 0 && i > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      if (i < pieces.length) controller.enqueue(pieces[i++]);
      else if (failWith) controller.error(failWith);
      else controller.close();
    },
  });
}

const bytes = (text: string) => new TextEncoder().encode(text);

async function relay(stream: ReadableStream<Uint8Array>) {
  const stored: string[] = [];
  const end = await relayPieces(stream, { store: (txt) => stored.push(txt) });
  return { stored, end };
}

describe('relayPieces', () => {
  it('holds a character cut between two reads until its last byte arrives', async () => {
    const clef = bytes('𝄞');
    const { stored } = await relay(body([bytes('a'), clef.subarray(0, 1), clef.subarray(1, 3), Uint8Array.of(clef[3], 0x62)], 20));
    expect(stored.join('')).toBe('a𝄞b');
    for (const piece of stored) expect(piece).not.toContain('\uFFFD');
  });

  it('keeps a leading byte-order mark and reads invalid bytes as U+FFFD', async () => {
    const { stored } = await relay(body([Uint8Array.of(0xef, 0xbb, 0xbf, 0x61, 0xff, 0x62)], 0));
    expect(stored.join('')).toBe('\uFEFFa\uFFFDb');
  });

  it('packs pieces that arrive together into one stored piece', async () => {
    const pieces = Array.from({ length: 100 }, (_, i) => bytes(`data: ${i}\n\n`));
    const { stored } = await relay(body(pieces, 0));
    expect(stored.join('')).toBe(pieces.map((p) => new TextDecoder().decode(p)).join(''));
    expect(stored.length).toBeLessThanOrEqual(2);
  });

  it('stores pieces that arrive apart one by one', async () => {
    const { stored } = await relay(body([bytes('one'), bytes('two'), bytes('three')], 40));
    expect(stored).toEqual(['one', 'two', 'three']);
  });

  it(`starts a new stored piece past ${PACK_CHARS} characters`, async () => {
    const pieces = Array.from({ length: 40 }, () => bytes('x'.repeat(1024)));
    const { stored } = await relay(body(pieces, 0));
    expect(stored.join('').length).toBe(40 * 1024);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    // However the reads are timed (a loaded machine flushes earlier), no piece grows past the limit by a whole read.
    for (const piece of stored) expect(piece.length).toBeLessThan(PACK_CHARS + 1024);
  });

  it('keeps what arrived before a failure and answers the failure', async () => {
    const failure = new Error('connection lost');
    const { stored, end } = await relay(body([bytes('first'), bytes('second')], 20, failure));
    expect(stored.join('')).toBe('firstsecond');
    expect(end).toEqual({ ok: false, error: failure });
  });

  it('drops the bytes of a character cut off by a failure instead of reading them as U+FFFD', async () => {
    const euro = bytes('€');
    const { stored, end } = await relay(body([bytes('paid 5'), euro.subarray(0, 2)], 20, new Error('connection lost')));
    expect(stored.join('')).toBe('paid 5');
    expect(end.ok).toBe(false);
  });

  it('passes each piece through the filter and adds what it held at the end', async () => {
    const seen: string[] = [];
    const filter = { push: (text: string) => (seen.push(text), Promise.resolve(text.toUpperCase())), end: () => Promise.resolve('!') };
    const stored: string[] = [];
    await relayPieces(body([bytes('ab'), bytes('cd')], 30), { filter, store: (txt) => stored.push(txt) });
    expect(stored.join('')).toBe('ABCD!');
    expect(seen.join('')).toBe('abcd');
  });
});
