// WebSockets of the streaming scenarios, with Node's global WebSocket (undici), which accepts headers:
// the gateway knows a visitor by address and user-agent, so the socket sends the bench's user-agent.
import { sequencedReader } from './pieces.mjs';

/** Opening a socket, and waiting for an answer frame (`next`), give up after this long. */
const OPEN_TIMEOUT_MS = 10_000;
const wallMs = () => performance.timeOrigin + performance.now();

/** `http://host` → `ws://host`. */
export const wsUrl = (base, route) => `${base.replace(/^http/, 'ws')}${route}`;

/**
 * Opens a socket whose `piece` frames go, time-stamped on arrival, into a sequencedReader (frame seq
 * rising by one from 1). Resolves { socket, pieces, checkFrames(), next(type) } once open:
 * `checkFrames()` throws the first problem met reading frames; `next(type)` waits for the next frame
 * of that type (or an error frame).
 */
export function openPieceSocket(url, userAgent) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { 'user-agent': userAgent } });
    const pieces = sequencedReader();
    const waiters = [];
    let failure;
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`${url}: not open within ${OPEN_TIMEOUT_MS} ms`));
    }, OPEN_TIMEOUT_MS);
    socket.addEventListener('message', (event) => {
      const receivedAt = wallMs();
      let frame;
      try {
        frame = JSON.parse(event.data);
        if (frame.type === 'piece' && failure === undefined) pieces.push(frame.seq, frame.txt, receivedAt);
      } catch (error) {
        failure ??= error;
        return;
      }
      const i = waiters.findIndex((w) => w.type === frame.type || frame.type === 'error');
      if (i >= 0) waiters.splice(i, 1)[0].resolve(frame);
    });
    const next = (type) =>
      new Promise((res, rej) => {
        const waiter = { type, resolve: res };
        waiters.push(waiter);
        setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i < 0) return;
          waiters.splice(i, 1);
          rej(new Error(`${url}: no ${type} frame within ${OPEN_TIMEOUT_MS} ms`));
        }, OPEN_TIMEOUT_MS).unref();
      });
    const checkFrames = () => {
      if (failure) throw failure;
    };
    socket.addEventListener('open', () => {
      clearTimeout(timer);
      resolve({ socket, pieces, checkFrames, next });
    });
    socket.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error(`${url}: the socket failed`));
    });
  });
}

/** Resolves when `done()` is true (checked every 10 ms), or throws `what` after `timeoutMs`. */
export async function until(done, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
