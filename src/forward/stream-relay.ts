/**
 * Reads a streamed answer and hands its text on as stored pieces: bytes decoded as UTF-8 only (a character
 * is never split across pieces; invalid bytes become U+FFFD), passed through a filter (the Secret Key's
 * redaction) and packed: pieces that arrive close together become one stored piece.
 */

/** Text in, text safe to pass on out; `end` hands back what it held. */
export interface PieceFilter {
  push(text: string): Promise<string>;
  end(): Promise<string>;
}

export interface RelayOptions {
  filter?: PieceFilter;
  /** Stores one packed piece; called in order, never with ''. */
  store(txt: string): void;
}

export type RelayEnd = { ok: true } | { ok: false; error: unknown };

/** A stored piece holds at most this much text unless one read alone brings more. */
export const PACK_CHARS = 16_384;
/** The next read is waited for this long before the pieces gathered are stored. */
const PACK_WINDOW_MS = 3;
/** A piece waits at most this long for others to join it. */
const MAX_PACK_AGE_MS = 15;

/** True when `promise` settles (either way) within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    late,
  ]);
  clearTimeout(timer);
  return settled;
}

const passThrough: PieceFilter = { push: (text) => Promise.resolve(text), end: () => Promise.resolve('') };

/** Reads `body` to its end (or its failure), storing packed pieces as they come. */
export async function relayPieces(body: ReadableStream<Uint8Array>, options: RelayOptions): Promise<RelayEnd> {
  const filter = options.filter ?? passThrough;
  const reader = body.getReader();
  // ignoreBOM keeps a leading byte-order mark: the reader's text is the destination's bytes.
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  let packed = '';
  let packedSince = 0;
  const flush = () => {
    if (packed !== '') options.store(packed);
    packed = '';
  };
  let next = reader.read();
  try {
    for (;;) {
      const { done, value } = await next;
      if (done) {
        packed += (await filter.push(decoder.decode())) + (await filter.end());
        flush();
        return { ok: true };
      }
      if (packed === '') packedSince = Date.now();
      packed += await filter.push(decoder.decode(value, { stream: true }));
      next = reader.read();
      if (packed.length >= PACK_CHARS || Date.now() - packedSince >= MAX_PACK_AGE_MS || !(await settlesWithin(next, PACK_WINDOW_MS))) flush();
    }
  } catch (error) {
    // What arrived before the failure is kept; the bytes of a character it cut off are dropped (they are not
    // the destination's text, and U+FFFD would be a character it never sent).
    try {
      packed += await filter.end();
      flush();
    } catch {
      // The filter's budget ran out as well: what it held is dropped, never passed on unfiltered.
    }
    return { ok: false, error };
  }
}
