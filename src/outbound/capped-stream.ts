/** A response body passed on piece by piece under a size cap, never read ahead of its reader. */

export interface CappedStreamErrors {
  /** The error the stream fails with once more than maxBytes arrived. */
  tooLarge: () => Error;
  /** The error the stream fails with when reading the source fails (time limit, dropped connection). */
  readFailed: (cause: unknown) => Error;
  /** Called once when the stream ends, fails or is cancelled (its timer can go). */
  finished?: () => void;
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
          errors.finished?.();
          controller.error(errors.readFailed(error));
          return;
        }
        if (piece.done) {
          errors.finished?.();
          controller.close();
          return;
        }
        size += piece.value.byteLength;
        if (size > maxBytes) {
          errors.finished?.();
          controller.error(errors.tooLarge());
          await reader.cancel().catch(() => undefined);
          return;
        }
        controller.enqueue(piece.value);
      },
      cancel(reason) {
        errors.finished?.();
        return reader.cancel(reason);
      },
    },
    // Pulls only when its reader asks, so nothing is read from the destination ahead of the caller.
    { highWaterMark: 0 },
  );
}
