/** One byte array holding the chunks in order. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The first read of a byte stream: most bodies (a JSON answer, a webhook) end within it. */
export const FIRST_READ_BYTES = 4 * 1024;

type TooLarge = () => Error;

/**
 * Reads a stream to its end, refusing it as soon as it passes maxBytes (the rest is never
 * buffered and the stream is cancelled): `tooLarge` makes the error thrown.
 */
export async function readCapped(stream: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: TooLarge): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = byobReader(stream);
  return reader ? readInLargeReads(reader, maxBytes, tooLarge) : readChunks(stream.getReader(), maxBytes, tooLarge);
}

/** A reader that fills a buffer natively (the runtime's bodies are byte streams); none for a stream made in JS. */
function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = stream.getReader({ mode: 'byob' });
  } catch {
    return undefined;
  }
  if (typeof reader.readAtLeast === 'function') return reader;
  reader.releaseLock();
  return undefined;
}

/**
 * Reads with readAtLeast, which resolves only once the buffer is full or the stream has ended: a body
 * that fits the first buffer is read in one call. At most one byte over the cap is ever asked for.
 */
async function readInLargeReads(reader: ReadableStreamBYOBReader, maxBytes: number, tooLarge: TooLarge): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let wanted = Math.min(FIRST_READ_BYTES, maxBytes + 1);
  for (;;) {
    const { done, value } = await reader.readAtLeast(wanted, new Uint8Array(wanted));
    const read = value?.byteLength ?? 0;
    size += read;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (read > 0) chunks.push(value as Uint8Array);
    // Fewer bytes than asked for means the stream ended.
    if (done || read < wanted) break;
    wanted = Math.min(wanted * 2, maxBytes + 1 - size);
  }
  reader.releaseLock();
  // Copied to their exact size: a view keeps its whole buffer alive (and an RPC would send all of it).
  return concatBytes(chunks);
}

async function readChunks(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number, tooLarge: TooLarge): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}
