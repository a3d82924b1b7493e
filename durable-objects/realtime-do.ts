import { type Connection, type ConnectionContext, Server, type WSMessage } from 'partyserver';
import type { RealtimeServerFrame } from '../schemas/forward-rules';
import { strictEnv, strictObject } from '../src/platform/strict-entry';
import { readClientFrame } from './realtime-frames';
import { INTERNAL_ERROR_MESSAGE, internalErrorBody } from '../src/wire/errors';

/** What each socket remembers, kept in its WebSocket attachment so it survives hibernation. */
export interface RealtimeSocketState {
  /** The realtime_group the socket listens to; one room at a time. */
  room: string | null;
}

/** One stored piece of a streamed answer, as the chunk store hands it over. */
export interface RealtimePiece {
  id: string;
  seq: number;
  txt: string;
}

type RealtimeConnection = Connection<RealtimeSocketState>;

/** Sends a frame; a socket that is closing or gone simply misses it (the poll is the source of truth). */
function sendFrame(connection: RealtimeConnection, frame: RealtimeServerFrame): boolean {
  try {
    connection.send(JSON.stringify(frame));
    return true;
  } catch {
    return false;
  }
}

/**
 * One object per project + caller (named like the caller's ForwardQueueDO): the caller's realtime sockets.
 * A socket joins the room of a streamed request (its realtime_group) and receives each stored piece that
 * push() hands over. Sockets reach only their own caller's object, so a socket that joins another caller's
 * group, or a group no request has, is answered `joined` like any other and simply never receives a piece.
 * Hibernatable: the room lives in each socket's attachment, and nothing (no timer, no alarm) keeps the
 * object awake between frames.
 */
export class RealtimeDO extends Server {
  static override options = { hibernate: true };

  /** The upgrade requests whose socket was set up; partyserver answers any other with its error socket. */
  readonly #connected = new WeakSet<Request>();

  constructor(ctx: DurableObjectState, env: ConstructorParameters<typeof Server>[1]) {
    super(ctx, strictEnv(env));
    strictObject(this, ctx, env);
  }

  override onConnect(connection: RealtimeConnection, ctx: ConnectionContext): void {
    connection.setState({ room: null });
    this.#connected.add(ctx.request);
  }

  /**
   * partyserver answers a failure while a socket is set up with a socket that sends the error's stack
   * (or, without an upgrade, the stack as a 500 body): that answer is replaced, so a caller only ever
   * reads 'Internal server error.' (the stack stays in the Worker's log, where partyserver writes it).
   */
  override async fetch(request: Request): Promise<Response> {
    const response = await super.fetch(request);
    if (this.#connected.has(request) || (response.status !== 101 && response.status < 500)) return response;
    if (response.status !== 101) return Response.json(internalErrorBody(), { status: 500 });
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    server.send(JSON.stringify({ type: 'error', message: INTERNAL_ERROR_MESSAGE } satisfies RealtimeServerFrame));
    server.close(1011, INTERNAL_ERROR_MESSAGE);
    return new Response(null, { status: 101, webSocket: client });
  }

  override onMessage(connection: RealtimeConnection, message: WSMessage): void {
    const reading = readClientFrame(message);
    if (!reading.ok) {
      sendFrame(connection, { type: 'error', message: reading.message });
      return;
    }
    const { frame } = reading;
    if (frame.type === 'join') {
      connection.setState({ room: frame.group });
      sendFrame(connection, { type: 'joined', group: frame.group });
      return;
    }
    connection.setState({ room: null });
    sendFrame(connection, { type: 'left' });
  }

  /**
   * A close frame without a status code (1005) is not answered by partyserver (a reserved code cannot be
   * sent back), which leaves the client closing for seconds: answer it with a normal close.
   */
  override onClose(connection: RealtimeConnection, code: number): void {
    if (code !== 1005) return;
    try {
      connection.close(1000, 'closed');
    } catch {
      // Already closed.
    }
  }

  /** Sends the piece to every socket in the room `group`; answers how many it reached. */
  async push(group: string, piece: RealtimePiece): Promise<number> {
    const frame: RealtimeServerFrame = { type: 'piece', group, id: piece.id, seq: piece.seq, txt: piece.txt };
    let reached = 0;
    for (const connection of this.getConnections<RealtimeSocketState>()) {
      if (connection.state?.room === group && sendFrame(connection, frame)) reached += 1;
    }
    return reached;
  }
}
