import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { REQUEST_ID_HEADER, STATUS_CODE_HEADER } from '../../schemas/forward-rules';

/**
 * Browsers call the service cross-origin (the client library, tickets consumed from any site). The
 * API authenticates with bearer tokens, never cookies, so every origin may call it without
 * credentials. Request headers are allowed as asked, since a ticket's condition may read any header;
 * Retry-After is exposed so the client can honour a 429, and the headers of a forwarded answer so it can
 * read them.
 */
const EXPOSED_HEADERS = ['Retry-After', STATUS_CODE_HEADER, REQUEST_ID_HEADER];

/** Preflights are answered by Hono's cors middleware. */
const preflight = cors({
  origin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 600,
});

const EXPOSED = EXPOSED_HEADERS.join(',');

function addCorsHeaders(headers: Headers): void {
  headers.set('Access-Control-Allow-Origin', '*');
  headers.set('Access-Control-Expose-Headers', EXPOSED);
}

/**
 * Every other answer gets its headers once it is made. (Hono's middleware sets them before the handler
 * runs, which makes Hono build a placeholder Response and copy it into the real one on every request.)
 */
export const corsMiddleware: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'OPTIONS') return preflight(c, next);
  await next();
  try {
    addCorsHeaders(c.res.headers);
  } catch {
    // An answer passed on from fetch or a Durable Object has immutable headers: they go on a copy.
    const copy = new Response(c.res.body, c.res);
    addCorsHeaders(copy.headers);
    c.res = copy;
  }
};
