import { cors } from 'hono/cors';
import { REQUEST_ID_HEADER, STATUS_CODE_HEADER } from '../../schemas/forward-rules';

/**
 * Browsers call the service cross-origin (the client library, tickets consumed from any site). The
 * API authenticates with bearer tokens, never cookies, so every origin may call it without
 * credentials. Request headers are allowed as asked, since a ticket's condition may read any header;
 * Retry-After is exposed so the client can honour a 429, and the headers of a forwarded answer so it can
 * read them.
 */
export const corsMiddleware = cors({
  origin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  exposeHeaders: ['Retry-After', STATUS_CODE_HEADER, REQUEST_ID_HEADER],
  maxAge: 600,
});
