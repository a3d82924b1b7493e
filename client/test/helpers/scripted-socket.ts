import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** One accepted WebSocket connection of the scripted server: text frames in and out (RFC 6455, no extensions). */
export interface ScriptedSocket {
  /** The request path and query it was opened with. */
  url: string;
  send(text: string): void;
  /** Closes the connection (a close frame, then the TCP connection). */
  close(): void;
  /** Cuts the TCP connection without a close frame. */
  destroy(): void;
  readonly closed: boolean;
}

export interface SocketHandlers {
  open?(socket: ScriptedSocket): void;
  message(socket: ScriptedSocket, text: string): void;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, length]) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (length >= 126) {
    head[0] = 0x80 | opcode;
    head[1] = length < 65_536 ? 126 : 127;
    if (length < 65_536) head.writeUInt16BE(length, 2);
    else head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Accepts WebSocket upgrades on `server` for paths starting with `prefix`; answers pings, reads masked text frames. */
export function acceptSockets(server: Server, prefix: string, handlers: SocketHandlers): ScriptedSocket[] {
  const sockets: ScriptedSocket[] = [];
  server.on('upgrade', (req: IncomingMessage, tcp: Duplex) => {
    if (!req.url?.startsWith(prefix)) return tcp.destroy();
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${GUID}`).digest('base64');
    tcp.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    let closed = false;
    const socket: ScriptedSocket = {
      url: req.url,
      send: (text) => void (!closed && tcp.write(frame(0x1, Buffer.from(text, 'utf8')))),
      close: () => {
        if (closed) return;
        closed = true;
        tcp.end(frame(0x8, Buffer.from([0x03, 0xe8])));
      },
      destroy: () => {
        closed = true;
        tcp.destroy();
      },
      get closed() {
        return closed;
      },
    };
    sockets.push(socket);
    let pending = Buffer.alloc(0);
    tcp.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (pending.length < 2) return;
        const opcode = pending[0] & 0x0f;
        let length = pending[1] & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (pending.length < 4) return;
          length = pending.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (pending.length < 10) return;
          length = Number(pending.readBigUInt64BE(2));
          offset = 10;
        }
        if (pending.length < offset + 4 + length) return;
        const mask = pending.subarray(offset, offset + 4);
        const payload = Buffer.from(pending.subarray(offset + 4, offset + 4 + length).map((byte, i) => byte ^ mask[i % 4]));
        pending = pending.subarray(offset + 4 + length);
        if (opcode === 0x1) handlers.message(socket, payload.toString('utf8'));
        else if (opcode === 0x9) tcp.write(frame(0xa, payload));
        else if (opcode === 0x8) {
          if (!closed) tcp.end(frame(0x8, payload));
          closed = true;
        }
      }
    });
    tcp.on('close', () => (closed = true));
    tcp.on('error', () => (closed = true));
    handlers.open?.(socket);
  });
  return sockets;
}
