import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const CLIENT = path.resolve(import.meta.dirname, '..', '..');
export const EXAMPLE_PAGE = path.join(CLIENT, 'test', 'fixtures', 'signup.html');
/** The README's forwarding example: a page that calls a JSON API with a key it never holds. */
export const FORWARD_EXAMPLE_PAGE = path.join(CLIENT, 'test', 'fixtures', 'ask.html');
/** The README's streaming example: an LLM-style answer rendered as it arrives, resumed after a reload. */
export const STREAM_EXAMPLE_PAGE = path.join(CLIENT, 'test', 'fixtures', 'stream.html');
const API_ORIGIN = 'https://api.example.com';
const MODULE_PAGE = `<!doctype html><title>client</title><script type="module">import * as client from './dist/index.js'; window.svcClient = client;</script>`;
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.map': 'application/json', '.ts': 'text/plain', '.html': 'text/html' };

/**
 * Serves the built client (/dist/...), the README's example pages (/, /ask.html and /stream.html) with the Worker's
 * address (and the API's, when given) filled in, and a page that puts the client module on
 * window.svcClient (/module.html), on 127.0.0.1: another origin than the Worker's.
 */
export async function startPageServer(fill: { serviceId: string; baseUrl: string; apiOrigin?: string }) {
  const filled = async (file: string) =>
    (await readFile(file, 'utf8'))
      .replace('YOUR_SERVICE_ID', fill.serviceId)
      .replace('https://your-worker.example.com', fill.baseUrl)
      .replace(API_ORIGIN, fill.apiOrigin ?? API_ORIGIN);
  const server = createServer(async (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://page').pathname;
    try {
      if (pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(await filled(EXAMPLE_PAGE));
      if (pathname === '/ask.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(await filled(FORWARD_EXAMPLE_PAGE));
      if (pathname === '/stream.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(await filled(STREAM_EXAMPLE_PAGE));
      if (pathname === '/module.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(MODULE_PAGE);
      const file = path.resolve(CLIENT, `.${pathname}`);
      if (!pathname.startsWith('/dist/') || !file.startsWith(path.join(CLIENT, 'dist'))) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
