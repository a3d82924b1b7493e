/** A response body passed on piece by piece under a size cap, never read ahead of its reader. */

export interface CappedStreamErrors {
  /** The error the stream fails with once more than maxBytes arrived. */
  tooLarge: () => Error;
  /** The error the stream fails with when reading the source fails (time limit, dropped connection). */
  readFailed: (cause: unknown) => Error;
}

/**
 * Passes the source on as it arrives. The piece that takes the total past maxBytes is not passed on: the
 * stream fails with errors.tooLarge() and the source is cancelled, so the rest is never read. Cancelling
 * the returned stream cancels the source.
 */
export function cappedStream(source: ReadableStream<Uint8Array>, maxBytes: number, errors: CappedStreamErrors): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let piece: ReadableStreamReadResult<Uint8Array>;
        try {
          piece = await reader.read();
        } catch (error) {
          controller.error(errors.readFailed(error));
          return;
        }
        if (piece.done) {
          controller.close();
          return;
        }
        size += piece.value.byteLength;
        if (size > maxBytes) {
          controller.error(errors.tooLarge());
          await reader.cancel().catch(() => undefined);
          return;
        }
        controller.enqueue(piece.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Pulls only when its reader asks, so nothing is read from the destination ahead of the caller.
    { highWaterMark: 0 },
  );
}

/** Every piece of the stream in one byte array; fails as the stream fails. */
export async function readWhole(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const pieces: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pieces.push(value);
  }
  return concat(pieces);
}

function concat(pieces: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let offset = 0;
  for (const piece of pieces) {
    bytes.set(piece, offset);
    offset += piece.byteLength;
  }
  return bytes;
}
