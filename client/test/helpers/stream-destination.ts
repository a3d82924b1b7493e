import type { ServerResponse } from 'node:http';
import { json, startScriptedServer } from './scripted-server.js';

/** One piece of an answer as the destination writes it: text, or raw bytes (half a character, say). */
export type Piece = string | Uint8Array;

export interface ScriptedStream {
  pieces: Piece[];
  /** ms between two writes; 0 writes them back to back. */
  gapMs?: number;
  /** Wait for this before writing piece number `index` (0-based). */
  gate?: { index: number; open: Promise<void> };
  /** Cut the connection after the pieces instead of ending the answer. */
  cut?: boolean;
  /** Status of the answer (default 200). */
  status?: number;
  /** Headers of the answer besides the content type (a 429's Retry-After, say). */
  headers?: Record<string, string>;
  /** Play the script this many times, then answer the path as an unscripted one (JSON `{ ok: true }`). */
  times?: number;
}

/** What the destination wrote of one path, byte for byte, and whether it finished. */
export interface Written {
  bytes: Buffer;
  finished: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A loopback destination that answers each scripted path with server-sent events written in timed
 * pieces (any other path answers JSON `{ ok: true }`), recording what it wrote.
 */
export async function startStreamDestination() {
  const server = await startScriptedServer();
  const scripts = new Map<string, ScriptedStream>();
  const written = new Map<string, Written>();

  async function play(path: string, script: ScriptedStream, res: ServerResponse) {
    const record: Written = { bytes: Buffer.alloc(0), finished: false };
    written.set(path, record);
    res.writeHead(script.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...script.headers });
    for (const [index, piece] of script.pieces.entries()) {
      if (script.gate?.index === index) await script.gate.open;
      const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece);
      record.bytes = Buffer.concat([record.bytes, bytes]);
      res.write(bytes);
      if (script.gapMs) await sleep(script.gapMs);
    }
    if (script.cut) return res.socket?.destroy();
    res.end();
    record.finished = true;
  }

  server.handle((req, res) => {
    const path = new URL(req.url, 'http://destination').pathname;
    const script = scripts.get(path);
    if (!script) return json(res, 200, { ok: true });
    if (script.times !== undefined && --script.times <= 0) scripts.delete(path);
    void play(path, script, res);
  });

  return {
    url: server.url,
    requests: server.requests,
    /** Answers `path` with the script from now on. */
    script(path: string, stream: ScriptedStream): void {
      scripts.set(path, stream);
    },
    written: (path: string) => written.get(path),
    close: () => server.close(),
  };
}

/** An LLM-style server-sent event carrying one delta of text, and the stream's last event. */
export const deltaEvent = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;
export const DONE_EVENT = 'data: [DONE]\n\n';
