import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body as it arrived, byte for byte. */
  bytes: Buffer;
}

export type Handler = (request: RecordedRequest, res: ServerResponse) => void;

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the next requests are answered. */
  handle(handler: Handler): void;
  close(): Promise<void>;
  /** The HTTP server itself (to accept WebSocket upgrades: scripted-socket.ts). */
  http: Server;
}

/** A local HTTP server that records every request and answers as the test scripts it. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let handler: Handler = (_req, res) => res.writeHead(500).end('no handler');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: bytes.toString('utf8'), bytes };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (next) => (handler = next),
    http: server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
