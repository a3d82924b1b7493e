/** Real WebSockets on the realtime route through the Worker, read frame by frame. */
import { env, exports } from 'cloudflare:workers';
import { REALTIME_ROUTE, REALTIME_TOKEN_PARAM, type RealtimeServerFrame } from '../../schemas/forward-rules';
import { forwardCaller } from '../../src/forward/caller';
import { BASE, type TestProject } from '../helpers/api';
import { realtimeStub } from '../../src/platform/object-stubs';

/** Who opens the socket: a visitor (IP address and user agent), or a signed-in caller by query token or header. */
export interface Opener {
  ip?: string;
  userAgent?: string;
  token?: string;
  authorization?: string;
}

export const VISITOR: Opener = { ip: '198.51.100.10', userAgent: 'realtime-tests' };

/** A fresh realtime_group: 22 base62 characters. */
export function newGroup(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return Array.from(crypto.getRandomValues(new Uint8Array(22)), (byte) => alphabet[byte % 62]).join('');
}

export function realtimeUrl(serviceId: string, opener: Opener = {}): string {
  const query = opener.token === undefined ? '' : `?${REALTIME_TOKEN_PARAM}=${encodeURIComponent(opener.token)}`;
  return `${BASE}/v1/projects/${serviceId}${REALTIME_ROUTE}${query}`;
}

export function upgradeRequest(serviceId: string, opener: Opener = VISITOR, upgrade = true): Promise<Response> {
  const headers: Record<string, string> = { 'cf-connecting-ip': opener.ip ?? VISITOR.ip!, 'user-agent': opener.userAgent ?? VISITOR.userAgent! };
  if (upgrade) headers.upgrade = 'websocket';
  if (opener.authorization !== undefined) headers.authorization = opener.authorization;
  return exports.default.fetch(realtimeUrl(serviceId, opener), { headers });
}

/** One accepted client socket and the frames it has received, in order. */
export class TestSocket {
  private readonly frames: unknown[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  constructor(readonly ws: WebSocket) {
    ws.accept();
    ws.addEventListener('message', (event) => {
      this.frames.push(typeof event.data === 'string' ? JSON.parse(event.data) : event.data);
      this.waiter?.();
    });
    ws.addEventListener('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  send(frame: unknown): void {
    this.ws.send(
      typeof frame === 'string' || frame instanceof ArrayBuffer || ArrayBuffer.isView(frame) ? (frame as string | ArrayBuffer) : JSON.stringify(frame),
    );
  }

  /** The next frame received (at most 5 s). */
  async next(): Promise<RealtimeServerFrame> {
    const until = Date.now() + 5_000;
    while (this.frames.length === 0) {
      if (this.closed) throw new Error('the socket closed');
      const remaining = until - Date.now();
      if (remaining <= 0) throw new Error('no frame within 5 s');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    return this.frames.shift() as RealtimeServerFrame;
  }

  /** Sends a frame and answers the server's reply to it. */
  async ask(frame: unknown): Promise<RealtimeServerFrame> {
    this.send(frame);
    return this.next();
  }

  /**
   * Every frame received before a round trip made now: the object answers frames in order, so what it sent
   * before answering this `leave` arrives before `left`. Leaves the socket in no room.
   */
  async drainUntilLeft(): Promise<RealtimeServerFrame[]> {
    this.send({ type: 'leave' });
    const seen: RealtimeServerFrame[] = [];
    for (let frame = await this.next(); frame.type !== 'left'; frame = await this.next()) seen.push(frame);
    return seen;
  }

  close(): void {
    this.ws.close(1000, 'done');
  }
}

export async function openSocket(project: TestProject, opener: Opener = VISITOR): Promise<TestSocket> {
  const res = await upgradeRequest(project.service_id, opener);
  if (res.status !== 101 || !res.webSocket) throw new Error(`no upgrade: ${res.status} ${await res.text()}`);
  return new TestSocket(res.webSocket);
}

export async function joined(socket: TestSocket, group: string): Promise<void> {
  const answer = await socket.ask({ type: 'join', group });
  if (answer.type !== 'joined' || answer.group !== group) throw new Error(`join answered ${JSON.stringify(answer)}`);
}

/** The realtime object of a visitor, found the way the forwarding routes find the caller's queue object. */
export async function visitorStub(project: TestProject, opener: Opener = VISITOR) {
  const caller = await forwardCaller({ kind: 'anonymous' }, opener.ip ?? VISITOR.ip!, opener.userAgent ?? VISITOR.userAgent!);
  return realtimeStub(env, { serviceId: project.service_id, callerKey: caller.key });
}

export const piece = (seq: number, id = '1a:AAAAAAAAAAAAAAAA') => ({ id, seq, txt: `piece ${seq}` });
