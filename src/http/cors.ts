import { cors } from 'hono/cors';

/**
 * Browsers call the service cross-origin (the client library, tickets consumed from any site). The
 * API authenticates with bearer tokens, never cookies, so every origin may call it without
 * credentials. Request headers are allowed as asked, since a ticket's condition may read any header;
 * Retry-After is exposed so the client can honour a 429.
 */
export const corsMiddleware = cors({
  origin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  exposeHeaders: ['Retry-After'],
  maxAge: 600,
});
