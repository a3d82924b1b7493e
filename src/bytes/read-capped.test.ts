import { describe, expect, it, vi } from 'vitest';
import { FIRST_READ_BYTES, readCapped } from './read-capped';

class Over extends Error {}
const over = () => new Over('over the cap');

/** Bytes 0, 1, 2, … 255, 0, 1, … (a mixed-up chunk order would show). */
const patterned = (length: number) => Uint8Array.from({ length }, (_, i) => i % 256);

/** A runtime byte stream (as fetch, a Request or a Response gives) fed by `pieces` written one after another. */
function runtimeStream(pieces: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  const { readable, writable } = new IdentityTransformStream();
  void (async () => {
    const writer = writable.getWriter();
    for (const piece of pieces) await writer.write(piece);
    await writer.close();
  })().catch(() => undefined);
  return readable as ReadableStream<Uint8Array>;
}

/** A stream made in JS (no byte source): read chunk by chunk. */
const jsStream = (pieces: readonly Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });

/** `total` bytes of the pattern cut into pieces of `size`. */
function piecesOf(total: number, size: number): Uint8Array[] {
  const bytes = patterned(total);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < total; at += size) pieces.push(bytes.slice(at, at + size));
  return pieces;
}

const makers = { 'a runtime byte stream': runtimeStream, 'a stream made in JS': jsStream };

describe('readCapped', () => {
  for (const [kind, make] of Object.entries(makers)) {
    describe(kind, () => {
      it.each([0, 1, 1000, FIRST_READ_BYTES - 1, FIRST_READ_BYTES, FIRST_READ_BYTES + 1, 16_385, 100_000])(
        'reads %i bytes whole and in order, whatever the pieces',
        async (total) => {
          for (const size of [1000, FIRST_READ_BYTES, 70_000]) {
            const bytes = await readCapped(make(piecesOf(total, size)), 200_000, over);
            expect(bytes).toEqual(patterned(total));
            // Exact size: no spare buffer travels with the bytes.
            expect(bytes.buffer.byteLength).toBe(total);
          }
        },
      );

      it.each([0, 1, FIRST_READ_BYTES - 1, FIRST_READ_BYTES, FIRST_READ_BYTES + 1, 50_000])(
        'accepts exactly the cap (%i) and refuses one byte over it',
        async (cap) => {
          expect(await readCapped(make(piecesOf(cap, 4096)), cap, over)).toEqual(patterned(cap));
          await expect(readCapped(make(piecesOf(cap + 1, 4096)), cap, over)).rejects.toBeInstanceOf(Over);
        },
      );
    });
  }

  it('stops reading an endless runtime stream once it passes the cap, and cancels it', async () => {
    const { readable, writable } = new IdentityTransformStream();
    const writer = writable.getWriter();
    let written = 0;
    const writing = (async () => {
      // Bounded: the cap is passed after 17 pieces; the writes fail once the reader cancels.
      for (let i = 0; i < 1000; i++) {
        await writer.write(new Uint8Array(1024));
        written += 1024;
      }
    })();
    await expect(readCapped(readable as ReadableStream<Uint8Array>, 16_000, over)).rejects.toBeInstanceOf(Over);
    await expect(writing).rejects.toBeDefined();
    expect(written).toBeLessThan(64 * 1024);
  });

  it('reads a runtime byte stream that fits the first buffer in one native read, a larger one in few', async () => {
    const reads = vi.spyOn(ReadableStreamBYOBReader.prototype, 'readAtLeast');
    try {
      await readCapped(runtimeStream(piecesOf(FIRST_READ_BYTES - 1, 1000)), 200_000, over);
      expect(reads).toHaveBeenCalledTimes(1);
      reads.mockClear();
      // Each read asks for twice the last: 1, 2, 4, 8, 16 and 32 times the first (63 in all) end 50 firsts' worth.
      await readCapped(runtimeStream(piecesOf(50 * FIRST_READ_BYTES, 1000)), 64 * FIRST_READ_BYTES, over);
      expect(reads).toHaveBeenCalledTimes(6);
    } finally {
      reads.mockRestore();
    }
  });

  it('reads a Response body and answers an empty array for no stream', async () => {
    expect(await readCapped(new Response(patterned(3000)).body, 3000, over)).toEqual(patterned(3000));
    expect(await readCapped(null, 10, over)).toEqual(new Uint8Array(0));
  });
});
