import { DurableObject } from 'cloudflare:workers';

/**
 * The baseline of (s3): a bare hibernating Durable Object that only broadcasts. Each WebSocket is
 * accepted with the hibernation API and keeps no state; `broadcast` sends one frame to every socket.
 */
export class Broadcaster extends DurableObject {
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return new Response('a WebSocket upgrade is required', { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  broadcast(frame: string): number {
    const sockets = this.ctx.getWebSockets();
    for (const socket of sockets) socket.send(frame);
    return sockets.length;
  }

  override webSocketMessage(): void {}

  override webSocketClose(socket: WebSocket, code: number): void {
    socket.close(code === 1005 ? 1000 : code);
  }
}
