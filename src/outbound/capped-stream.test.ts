import { describe, expect, it } from 'vitest';
import { cappedStream, type CappedStreamErrors } from './capped-stream';

/** Every piece of the stream in one byte array; fails as the stream fails. */
const readWhole = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());

class TooLarge extends Error {}
class ReadFailed extends Error {}
const errors: CappedStreamErrors = { tooLarge: () => new TooLarge('too large'), readFailed: (cause) => new ReadFailed('read failed', { cause }) };

/** A source that makes one piece of `size` bytes per pull, counting pulls and recording its cancellation. */
function countingSource(sizes: number[]) {
  const seen = { pulls: 0, cancelled: false as boolean, reason: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const size = sizes[seen.pulls++];
        if (size === undefined) controller.close();
        else controller.enqueue(new Uint8Array(size).fill(seen.pulls));
      },
      cancel(reason) {
        seen.cancelled = true;
        seen.reason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('did not fail');
}

describe('a response body passed on under a size cap', () => {
  it('reads the source only when its own reader asks, one piece per read', async () => {
    const { stream, seen } = countingSource([3, 3, 3]);
    const reader = cappedStream(stream, 100, errors).getReader();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.pulls).toBe(0);
    expect((await reader.read()).value).toEqual(new Uint8Array([1, 1, 1]));
    expect(seen.pulls).toBe(1);
  });

  it('passes every piece on in order up to exactly the cap', async () => {
    const { stream } = countingSource([4, 4, 2]);
    expect(await readWhole(cappedStream(stream, 10, errors))).toEqual(new Uint8Array([1, 1, 1, 1, 2, 2, 2, 2, 3, 3]));
  });

  it('fails with tooLarge on the piece that passes the cap, without passing it on, and cancels the source', async () => {
    const { stream, seen } = countingSource([4, 4, 4, 4]);
    const reader = cappedStream(stream, 10, errors).getReader();
    expect((await reader.read()).value?.byteLength).toBe(4);
    expect((await reader.read()).value?.byteLength).toBe(4);
    expect(await failureOf(reader.read())).toBeInstanceOf(TooLarge);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulls).toBe(3);
  });

  it('fails with readFailed, carrying the cause, when reading the source fails', async () => {
    const cause = new Error('connection reset');
    const source = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(cause) });
    const failure = await failureOf(readWhole(cappedStream(source, 10, errors)));
    expect(failure).toBeInstanceOf(ReadFailed);
    expect((failure as Error).cause).toBe(cause);
  });

  it('cancels the source with the reason when its reader cancels', async () => {
    const { stream, seen } = countingSource([1, 1, 1]);
    await cappedStream(stream, 10, errors).cancel('caller gone');
    expect(seen).toMatchObject({ cancelled: true, reason: 'caller gone' });
  });
});
