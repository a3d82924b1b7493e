/**
 * The realtime socket a client borrows for streamed reads (spec 6.2): one WebSocket per Svc, opened by
 * the first realtime read and closed when that read lets go. One connection is in one room at a time,
 * so the first read holds the room and a second one gets none (it reads at poll speed). Every failure
 * (no WebSocket, a socket that will not open, drops or sends an error frame) only ends the pushes: the
 * poll of the read carries on, so nothing here is ever an error.
 */
import type { RealtimeClientFrame, RealtimeServerFrame } from '../../schemas/forward-rules.js';

/** A piece pushed to the room for the request being read. */
export type OnPushedPiece = (seq: number, txt: string) => void;

/** A read's hold on the room; release() leaves it (and closes the socket this link opened). */
export interface RealtimeRoom {
  release(): void;
}

interface Holder {
  group: string;
  /** The request's public id (stamp:entropy), as pieces name it. */
  id: string;
  onPiece: OnPushedPiece;
}

function frameOf(data: unknown): RealtimeServerFrame | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const frame = JSON.parse(data) as RealtimeServerFrame;
    return typeof frame === 'object' && frame !== null ? frame : undefined;
  } catch {
    return undefined;
  }
}

export class RealtimeLink {
  private socket: WebSocket | null = null;
  private holder: Holder | null = null;

  /** `socketUrl` gives the ws(s) address of the project's realtime route, the id token of the moment on it. */
  constructor(private readonly socketUrl: () => string) {}

  /** Joins `group` for the read of request `id`; null when the room is already held or there is no WebSocket to open. */
  join(group: string, id: string, onPiece: OnPushedPiece): RealtimeRoom | null {
    // The socket lives only while a read holds the room, so a free room means no socket yet.
    if (this.holder) return null;
    const socket = this.open();
    if (!socket) return null;
    const holder: Holder = { group, id, onPiece };
    this.holder = holder;
    const frame: RealtimeClientFrame = { type: 'join', group };
    socket.addEventListener('open', () => this.socket === socket && socket.send(JSON.stringify(frame)), { once: true });
    return {
      release: () => {
        if (this.holder !== holder) return;
        this.holder = null;
        this.drop();
      },
    };
  }

  private open(): WebSocket | null {
    const Socket = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
    if (typeof Socket !== 'function') return null;
    let socket: WebSocket;
    try {
      socket = new Socket(this.socketUrl());
    } catch {
      return null;
    }
    this.socket = socket;
    socket.addEventListener('message', (event) => this.receive(socket, event.data));
    socket.addEventListener('close', () => this.forget(socket));
    socket.addEventListener('error', () => this.forget(socket));
    return socket;
  }

  private receive(socket: WebSocket, data: unknown): void {
    if (this.socket !== socket) return;
    const frame = frameOf(data);
    if (frame?.type === 'error') return this.drop();
    const holder = this.holder;
    if (frame?.type !== 'piece' || !holder || frame.group !== holder.group || frame.id !== holder.id) return;
    if (typeof frame.seq === 'number' && typeof frame.txt === 'string') holder.onPiece(frame.seq, frame.txt);
  }

  /** A socket that closed or failed is forgotten; the holder keeps the room and reads at poll speed. */
  private forget(socket: WebSocket): void {
    if (this.socket === socket) this.socket = null;
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = null;
    try {
      // A normal closure with its code: a close frame without one is left unanswered by some servers (workerd), holding the socket for seconds.
      socket?.close(1000);
    } catch {
      // Closing a socket that never opened may throw in some environments; it is gone either way.
    }
  }
}
