// The pieces of the streaming scenarios (s1, s2, sp, s3): server-sent events of about 120 bytes, as an
// LLM's token stream, each carrying its index and the destination's wall-clock time of writing it,
// and a reader that turns received text (cut anywhere, packed any way) back into those pieces.

/** Fills each event to about the size of an LLM's token event (an event ends with a blank line, which no key holds). */
const PAD = 'the quick brown fox jumps over the lazy dog while the model keeps on writing';

/** One event: `data: {"i":<index>,"t":<wall ms>,"p":"..."}` and a blank line. */
export const pieceText = (index, writtenAt) => `data: {"i":${index},"t":${writtenAt.toFixed(3)},"p":"${PAD}"}\n\n`;

const EVENT_END = '\n\n';
const PIECE = /^data: \{"i":(\d+),"t":(\d+(?:\.\d+)?),/;

/**
 * A reader of one stream's text: `push(text, receivedAt)` returns the pieces the text completed, each
 * { index, writtenAt, latency } (receivedAt − writtenAt, ms); `check(count)` throws unless pieces
 * 0..count−1 each came exactly once.
 */
export function pieceReader() {
  let rest = '';
  const seen = new Map();
  return {
    push(text, receivedAt) {
      rest += text;
      const events = rest.split(EVENT_END);
      rest = events.pop();
      const pieces = [];
      for (const event of events) {
        const m = PIECE.exec(event);
        if (!m) throw new Error(`not a bench piece: ${JSON.stringify(event.slice(0, 80))}`);
        const index = Number(m[1]);
        seen.set(index, (seen.get(index) ?? 0) + 1);
        const writtenAt = Number(m[2]);
        pieces.push({ index, writtenAt, latency: receivedAt - writtenAt });
      }
      return pieces;
    },
    /** How many pieces were read so far (counting repeats). */
    get count() {
      let n = 0;
      for (const c of seen.values()) n += c;
      return n;
    },
    check(count) {
      if (rest !== '') throw new Error(`a piece was cut off: ${JSON.stringify(rest.slice(0, 80))}`);
      const missing = [];
      const repeated = [];
      for (let i = 0; i < count; i++) {
        const c = seen.get(i) ?? 0;
        if (c === 0) missing.push(i);
        if (c > 1) repeated.push(i);
      }
      const extra = [...seen.keys()].filter((i) => i < 0 || i >= count);
      if (missing.length + repeated.length + extra.length > 0) {
        throw new Error(
          `pieces missing ${JSON.stringify(missing.slice(0, 10))} (${missing.length}), repeated ${JSON.stringify(repeated.slice(0, 10))} (${repeated.length}), unexpected ${extra.length}`,
        );
      }
    },
  };
}

/**
 * A pieceReader fed numbered parts (realtime frames, polled chunks): `push(seq, txt, receivedAt)`
 * throws unless seq is the last one plus one (from 1); keeps every piece's latency, the parts read
 * and when the last one arrived.
 */
export function sequencedReader() {
  const reader = pieceReader();
  const latencies = [];
  let parts = 0;
  let lastAt = NaN;
  return {
    latencies,
    get parts() {
      return parts;
    },
    get lastAt() {
      return lastAt;
    },
    get count() {
      return reader.count;
    },
    push(seq, txt, receivedAt) {
      if (seq !== parts + 1) throw new Error(`part ${seq} after ${parts}`);
      parts = seq;
      for (const piece of reader.push(txt, receivedAt)) latencies.push(piece.latency);
      lastAt = receivedAt;
    },
    check: (count) => reader.check(count),
  };
}
